/**
 * Server-sent events: one open response per page stream. Each message is one JSON value on one
 * `data:` line (JSON never holds a raw newline), so no text of a run can end a message early or
 * forge another. A comment line every 15 s keeps proxies and the browser from timing it out.
 */
import type { ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './guard.js';

const KEEPALIVE_MS = 15_000;

/** An open event stream. */
export class SseStream {
  private readonly keepalive: NodeJS.Timeout;
  closed = false;

  constructor(
    private readonly res: ServerResponse,
    onClose: () => void,
  ) {
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
    });
    // The browser retries a lost stream after this many ms (the page says so meanwhile).
    res.write('retry: 1000\n\n');
    this.keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    this.keepalive.unref();
    res.on('close', () => {
      this.closed = true;
      clearInterval(this.keepalive);
      onClose();
    });
  }

  send(message: unknown): void {
    if (this.closed) return;
    this.res.write(`data: ${JSON.stringify(message)}\n\n`);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepalive);
    this.res.end();
  }
}

/**
 * The runs list, live: while at least one page watches it, the project's runs are listed every
 * {@link RUNS_POLL_MS} (Temporal's visibility store is where runs started anywhere appear) and
 * sent to every page when they changed. One poller, whatever the number of pages.
 */
import type { RunSource } from './run-source.js';
import type { RunRow, RunsMessage } from './wire.js';

export const RUNS_POLL_MS = 500;

export interface RunsSubscriber {
  send(message: RunsMessage): void;
}

export class RunsFeed {
  private readonly subscribers = new Set<RunsSubscriber>();
  private last: RunsMessage | undefined;
  private lastText = '';
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly source: RunSource) {}

  subscribe(subscriber: RunsSubscriber): () => void {
    this.subscribers.add(subscriber);
    if (this.last) subscriber.send(this.last);
    if (!this.polling) {
      this.polling = true;
      void this.poll();
    }
    return () => {
      this.subscribers.delete(subscriber);
    };
  }

  /** Lists the runs once, so the first page gets them at once (called when the server starts). */
  warm(): void {
    if (this.last || this.polling) return;
    this.source.listRuns().then(
      (runs) => {
        if (this.last) return;
        this.last = { type: 'runs', runs };
        this.lastText = JSON.stringify(this.last);
      },
      () => undefined,
    );
  }

  /** The runs now (for `GET /api/runs`). */
  list(): Promise<RunRow[]> {
    return this.source.listRuns();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.polling = false;
  }

  private async poll(): Promise<void> {
    if (this.subscribers.size === 0) {
      this.polling = false;
      return;
    }
    const started = Date.now();
    let message: RunsMessage;
    try {
      message = { type: 'runs', runs: await this.source.listRuns() };
    } catch (err) {
      message = { type: 'error', message: `cannot list runs: ${(err as Error).message}` };
    }
    const text = JSON.stringify(message);
    if (text !== this.lastText) {
      this.lastText = text;
      this.last = message;
      for (const s of this.subscribers) s.send(message);
    }
    if (!this.polling) return;
    // A long list takes longer to read: the store is asked at most half the time.
    this.timer = setTimeout(() => void this.poll(), Math.max(RUNS_POLL_MS, Date.now() - started));
    this.timer.unref();
  }
}

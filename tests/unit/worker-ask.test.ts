/**
 * askWorkerOnce (runs/transport/ask.ts): one request line to a local socket, one answer line back,
 * however the answer is cut into pieces; anything else is undefined. A real socket, a real server.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { askWorkerOnce } from '../../runs/transport/ask.js';

/** A server on a fresh socket that answers each request with `answer(request line, socket)`. */
async function serving(answer: (line: string, socket: Socket) => void): Promise<{ path: string; close: () => void }> {
  const path = join(mkdtempSync(join(tmpdir(), 'll-ask-')), 's.sock');
  const server = createServer((socket) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) answer(text.slice(0, end), socket);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { path, close: () => server.close() };
}

describe('askWorkerOnce', () => {
  it('reads an answer of megabytes written in small pieces, up to its first newline', async () => {
    const big = 'x'.repeat(4 * 1024 * 1024);
    const { path, close } = await serving((line, socket) => {
      const text = `${JSON.stringify({ asked: JSON.parse(line), big })}\nnot part of the answer`;
      for (let at = 0; at < text.length; at += 1000) socket.write(text.slice(at, at + 1000));
      socket.end();
    });
    try {
      const reply = await askWorkerOnce<{ asked: unknown; big: string }>(path, { kind: 'logs' }, 30_000);
      expect(reply?.asked).toEqual({ kind: 'logs' });
      expect(reply?.big.length).toBe(big.length);
    } finally {
      close();
    }
  });

  it('is undefined for an answer that is not JSON, one cut off before its newline, and no server', async () => {
    const notJson = await serving((_line, socket) => socket.end('{"kind": \n'));
    const cut = await serving((_line, socket) => socket.end('{"kind": "logs"}'));
    try {
      expect(await askWorkerOnce(notJson.path, { kind: 'logs' }, 5_000)).toBeUndefined();
      expect(await askWorkerOnce(cut.path, { kind: 'logs' }, 5_000)).toBeUndefined();
      expect(await askWorkerOnce(join(tmpdir(), 'll-ask-none', 's.sock'), { kind: 'logs' }, 5_000)).toBeUndefined();
    } finally {
      notJson.close();
      cut.close();
    }
  });
});

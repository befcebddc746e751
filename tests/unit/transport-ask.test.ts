/**
 * The command's side of the checkout worker's socket (runs/transport/ask.ts askCheckoutWorker),
 * asking for the inbox: a listener that speaks the wire (one JSON line each way) stands in for
 * the worker. What it answers is the inbox; anything else — a refusal, garbage, a close without
 * an answer, another build's record, an external server — is undefined, and
 * the command lists the runs itself; an error the worker answers is the command's error.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeId } from '../../host/build-info.js';
import { workerRecordPath } from '../../host/checkout.js';
import { startSocketDir, startSocketPath } from '../../host/worker-socket.js';
import type { WaitingRun } from '../../runs/human/find-waiting.js';
import { askCheckoutWorker } from '../../runs/transport/ask.js';
import type { RequestOf } from '../../runs/transport/schemas.js';

type WorkerInboxRequest = RequestOf<'inbox'>;

const PORT = 27999;
const ENV = { LL_TEMPORAL_PORT: String(PORT) };

let dir: string;
let server: Server | undefined;
let requests: WorkerInboxRequest[];

const RUN: WaitingRun = {
  run: 'ask-20261125T120000',
  loop: 'ask',
  state: 'review',
  prompt: 'Ship it?',
  ask: 'approve',
  since: '2026-11-25T12:00:00.000Z',
  answer: 'll-loop answer ask-20261125T120000 yes | no',
};

/** A worker record naming this (live) process, of this build, polling the embedded server on PORT. */
function record(extra: Record<string, unknown> = {}): void {
  mkdirSync(join(dir, '.loops', '.worker'), { recursive: true });
  writeFileSync(
    workerRecordPath(dir),
    JSON.stringify({ pid: process.pid, code_id: codeId(), address: `127.0.0.1:${PORT}`, root: dir, ...extra }),
  );
}

/** Listen on the checkout's socket and answer each request line with `reply(request)` (raw text). */
function listen(reply: (r: WorkerInboxRequest) => string | undefined): Promise<void> {
  mkdirSync(startSocketDir(dir), { recursive: true });
  server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      const request = JSON.parse(buffer.slice(0, end)) as WorkerInboxRequest;
      requests.push(request);
      const text = reply(request);
      if (text === undefined) socket.destroy();
      else socket.end(text);
    });
  });
  return new Promise((resolve) => server!.listen(startSocketPath(dir), resolve));
}

const ask = async (env: NodeJS.ProcessEnv = ENV) =>
  (
    await askCheckoutWorker(
      'inbox',
      { project: { key: 'h:/p', root: dir }, here: { key: 'h:/p', root: dir } },
      { cwd: dir, env, timeoutMs: 15_000 },
    )
  )?.waiting;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'll-ib-'));
  mkdirSync(join(dir, '.loops'));
  requests = [];
});

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('asking the checkout worker for the inbox (command side)', () => {
  it("is the worker's list, asked with the command's build, server, checkout and scopes", async () => {
    record();
    await listen(() => `${JSON.stringify({ kind: 'inbox', waiting: [RUN] })}\n`);
    expect(await ask()).toEqual([RUN]);
    expect(requests).toEqual([
      {
        kind: 'inbox',
        code_id: codeId(),
        address: `127.0.0.1:${PORT}`,
        root: dir,
        project: { key: 'h:/p', root: dir },
        here: { key: 'h:/p', root: dir },
      },
    ]);
  });

  it('is undefined on a refusal, garbage, or a close without an answer', async () => {
    record();
    const replies = [
      `${JSON.stringify({ kind: 'refused', why: 'the worker is draining' })}\n`,
      'not json\n',
      undefined,
    ];
    let i = 0;
    await listen(() => replies[i++]);
    expect(await ask()).toBeUndefined();
    expect(await ask()).toBeUndefined();
    expect(await ask()).toBeUndefined();
    expect(requests).toHaveLength(3);
  });

  it('does not ask without a live worker of this build on this server, nor on an external server', async () => {
    await listen(() => `${JSON.stringify({ kind: 'inbox', waiting: [RUN] })}\n`);
    expect(await ask()).toBeUndefined(); // no record
    record({ code_id: 'another-build' });
    expect(await ask()).toBeUndefined();
    record({ address: '127.0.0.1:1' });
    expect(await ask()).toBeUndefined();
    record();
    expect(await ask({ ...ENV, TEMPORAL_ADDRESS: 'temporal.example:7233' })).toBeUndefined();
    expect(requests).toHaveLength(0);
    expect(await ask()).toEqual([RUN]);
  });

  it("throws the error the worker's report ended in, as the command's own error (not made twice)", async () => {
    record();
    const error = { kind: 'error', name: 'UsageError', message: 'no run nosuch', fix: 'll-loop list', exit_code: 1 };
    await listen(() => `${JSON.stringify(error)}\n`);
    await expect(ask()).rejects.toMatchObject({ message: 'no run nosuch', fix: 'll-loop list', exitCode: 1 });
    expect(requests).toHaveLength(1);
  });

  it('is undefined when nobody listens on the socket (a stale one)', async () => {
    record();
    expect(await ask()).toBeUndefined();
  });
});

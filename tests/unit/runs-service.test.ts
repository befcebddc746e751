/**
 * The runs service through the checkout's worker (runs/service/via-worker.ts): a listener
 * on the checkout's real socket stands in for the worker, and a second implementation of the
 * interface records what is left to `direct`. The worker's report is the answer; a refusal or no
 * worker leaves the read to `direct`; an error the worker's report ended in is thrown and the
 * report not made again; the writes are always `direct`'s. The factory picks `direct` alone on an
 * external server or with `LL_START_SOCKET=0`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeId } from '../../host/build-info.js';
import { workerRecordPath } from '../../host/checkout.js';
import { startSocketDir, startSocketPath } from '../../host/worker-socket.js';
import type { RunsService } from '../../runs/service/interface.js';
import { viaWorker } from '../../runs/service/via-worker.js';
import type { StatusReport } from '../../runs/find/status-report.js';

const PORT = 27997;
const ENV = { LL_TEMPORAL_PORT: String(PORT) };
const REPORT: StatusReport = { id: 'two-1', loop: 'two', open: false, status: 'completed', started_at: 't' };

let dir: string;
let server: Server | undefined;
let asked: number;
let directCalls: string[];

/** `direct`, as far as this test needs it: what it was asked, and a report of its own. */
function recordingDirect(): RunsService {
  const called =
    <T>(name: string, value: T) =>
    async (): Promise<T> => {
      directCalls.push(name);
      return value;
    };
  return {
    status: called('status', { ...REPORT, id: 'made-by-direct' }),
    logs: called('logs', {
      id: 'x',
      loop: 'two',
      status: 'completed',
      open: false,
      actions: [],
      people: [],
      warnings: [],
    }),
    history: called('history', { kind: 'runs' as const, loop: 'two', entries: [] }),
    running: called('running', []),
    inbox: called('inbox', []),
    queues: called('queues', []),
    stop: called('stop', { id: 'two-1', outcome: 'cancelled', status: 'completed' }),
    pause: called('pause', { id: 'two-1', by: 'me', answer: {} as never }),
    unpause: called('unpause', { id: 'two-1', by: 'me', answer: {} as never }),
    steer: called('steer', { id: 'two-1', by: 'me', answer: {} as never }),
    answer: called('answer', {} as never),
    rerun: called('rerun', {} as never),
    resume: called('resume', {} as never),
  };
}

function record(): void {
  mkdirSync(join(dir, '.loops', '.worker'), { recursive: true });
  writeFileSync(
    workerRecordPath(dir),
    JSON.stringify({ pid: process.pid, code_id: codeId(), address: `127.0.0.1:${PORT}`, root: dir }),
  );
}

/** The worker's stand-in: answers every request line with `reply`. */
function listen(reply: object): Promise<void> {
  mkdirSync(startSocketDir(dir), { recursive: true });
  server = createServer((socket) => {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      if (!chunk.includes('\n')) return;
      asked += 1;
      socket.end(`${JSON.stringify(reply)}\n`);
    });
  });
  return new Promise((resolve) => server!.listen(startSocketPath(dir), resolve));
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'll-rs-'));
  mkdirSync(join(dir, '.loops'));
  asked = 0;
  directCalls = [];
});

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('the runs service through the checkout worker', () => {
  it("a read is the worker's report; direct is not asked", async () => {
    record();
    await listen({ kind: 'status', report: REPORT });
    expect(await viaWorker(ENV, recordingDirect()).status(dir, 'two')).toEqual(REPORT);
    expect([asked, directCalls]).toEqual([1, []]);
  });

  it('a refusal, or no worker of this build: the read is made by direct', async () => {
    const runs = viaWorker(ENV, recordingDirect());
    expect((await runs.status(dir, 'two')).id).toBe('made-by-direct'); // no worker record
    record();
    await listen({ kind: 'refused', why: 'the worker is draining' });
    expect((await runs.status(dir, 'two')).id).toBe('made-by-direct');
    expect([asked, directCalls]).toEqual([1, ['status', 'status']]);
  });

  it("the error the worker's report ended in is the caller's error, and direct does not make it again", async () => {
    record();
    await listen({
      kind: 'error',
      name: 'UsageError',
      message: 'no run matches "nosuch"',
      fix: 'see ll-loop list',
      exit_code: 1,
    });
    await expect(viaWorker(ENV, recordingDirect()).status(dir, 'nosuch')).rejects.toMatchObject({
      message: 'no run matches "nosuch"',
      fix: 'see ll-loop list',
      exitCode: 1,
    });
    expect([asked, directCalls]).toEqual([1, []]);
  });

  it('the writes are always direct’s (the worker serves none)', async () => {
    record();
    await listen({ kind: 'refused', why: 'not asked' });
    const runs = viaWorker(ENV, recordingDirect());
    await runs.stop({ cwd: dir, target: 'two-1', force: false });
    await runs.pause({ cwd: dir, target: 'two-1' });
    await runs.steer({ cwd: dir, target: 'two-1' }, { to: 'a' });
    expect([asked, directCalls]).toEqual([0, ['stop', 'pause', 'steer']]);
  });
});

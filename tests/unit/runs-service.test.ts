/**
 * The runs service through the checkout's worker (runs/service/via-worker.ts): a listener
 * on the checkout's real socket stands in for the worker, and a second implementation of the
 * interface records what is left to `direct`. The worker's report is the answer; a refusal or no
 * worker leaves the read to `direct`; an error the worker's report ended in is thrown and the
 * report not made again; the writes are always `direct`'s; a start on the checkout's queue is
 * the worker's, else `direct`'s. The factory picks `direct` alone on an external server or with
 * `LL_START_SOCKET=0`.
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
import { directRuns } from '../../runs/service/direct.js';
import { runsService } from '../../runs/service/runs-service.js';
import type { RunStart } from '../../runs/start/run-start.js';
import { def, loop } from './helpers.js';

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
    start: called('start', { kind: 'refused' as const, why: 'made by direct' }),
    follow: called('follow', { workflowId: 'two-1', events: [], end: undefined, input: undefined, warnings: [] }),
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

/** A start of a one-state loop from the checkout at `dir`. */
function startOf(more: Partial<RunStart> = {}): RunStart {
  return {
    cwd: dir,
    definition: def(loop({ done: { terminal: true } }, { name: 'two', initial: 'done' })),
    file: join(dir, '.loops', 'two.yaml'),
    env: {},
    dataContext: [],
    started: new Date('2026-12-01T00:00:00Z'),
    lock: { none: false, wait: false },
    ...more,
  };
}

let lines: string[] = [];

/** The worker's stand-in: answers every request line with `reply`. */
function listen(reply: object): Promise<void> {
  mkdirSync(startSocketDir(dir), { recursive: true });
  server = createServer((socket) => {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      if (!chunk.includes('\n')) return;
      asked += 1;
      lines.push(chunk);
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
  lines = [];
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

  it('a run on the checkout’s queue is started by the worker; direct is not asked', async () => {
    record();
    await listen({ kind: 'started', instance_id: 'two-1', task_queue: 'q', run_id: 'r1', namespace: 'default' });
    const outcome = await viaWorker(ENV, recordingDirect()).start(startOf());
    expect(outcome).toMatchObject({
      kind: 'started',
      run: { instanceId: 'two-1', runId: 'r1', taskQueue: 'q', by: 'worker', place: { kind: 'checkout' } },
    });
    expect(JSON.parse(lines[0]!)).toMatchObject({ kind: 'start', cwd: dir, lock: { none: false, wait: false } });
    expect([asked, directCalls]).toEqual([1, []]);
  });

  it('a refusal, or a run for a pool: direct starts it (the worker is not asked for the pool’s)', async () => {
    record();
    await listen({ kind: 'refused', why: 'the worker is draining' });
    const runs = viaWorker(ENV, recordingDirect());
    await runs.start(startOf());
    await runs.start(startOf({ place: { kind: 'pinned', pool: 'p' } }));
    expect([asked, directCalls]).toEqual([1, ['start', 'start']]);
  });

  it('direct refuses a start only the checkout’s worker may make, before it connects', async () => {
    expect(await directRuns().start(startOf({ workerOnly: true }))).toEqual({
      kind: 'refused',
      why: 'no checkout worker is asked',
    });
  });
});

describe('the choice of implementation (runs-service.ts)', () => {
  it('through the checkout worker by default; direct alone on an external server or with LL_START_SOCKET=0', async () => {
    record();
    await listen({ kind: 'started', instance_id: 'two-1', task_queue: 'q', run_id: 'r1' });
    // A start only the worker may make: direct refuses it before it connects, so the choice shows.
    const only = startOf({ workerOnly: true });
    expect(await runsService({ ...ENV, LL_START_SOCKET: '0' }).start(only)).toMatchObject({ kind: 'refused' });
    expect(await runsService({ ...ENV, TEMPORAL_ADDRESS: 'temporal.example:7233' }).start(only)).toMatchObject({
      kind: 'refused',
    });
    expect(asked).toBe(0);
    expect(await runsService(ENV).start(only)).toMatchObject({ kind: 'started', run: { instanceId: 'two-1' } });
    expect(asked).toBe(1);
  });
});

/**
 * `ll-loop run` following the run its checkout worker started (runs/start/run-followed.ts) by the
 * runs service's `follow` through that worker (runs/service/follow-via-worker.ts), against a
 * listener on the worker's real socket path speaking the follow wire: the run's end becomes the
 * exit code, the worker's notes are the history follower's on stderr; when the stream breaks, the worker is brought back and `direct` follows on, and the
 * display shows neither the header again nor the events already shown.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { FollowMessage } from '../../runs/transport/schemas.js';
import { followThroughItsWorker } from '../../runs/start/run-followed.js';
import { viaWorker } from '../../runs/service/via-worker.js';
import type { RunsService } from '../../runs/service/interface.js';
import type { RunFollow } from '../../runs/follow/run-follow.js';
import type { FollowedRun } from '../../runs/follow/follow-events.js';
import { startSocketDir, startSocketPath } from '../../host/worker-socket.js';
import { workerRecordPath, type WorkerRecord } from '../../host/checkout.js';
import { codeId } from '../../host/build-info.js';
import { def, loop } from './helpers.js';

const PORT = 27996;
const ENV = { LL_TEMPORAL_PORT: String(PORT) };
const roots: string[] = [];
const servers: Server[] = [];

afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

const line = (m: FollowMessage) => `${JSON.stringify(m)}\n`;
const ts = '2026-11-25T00:00:00.000Z';
const EVENTS: TimedEvent[] = [
  { event: 'loop_start', loop: 'one', initial: 'go', max_iterations: 5, seq: 1, ts },
  { event: 'state_enter', state: 'go', iteration: 1, seq: 2, ts },
  { event: 'action_start', state: 'go', action: 'echo shown-once', action_type: 'shell', seq: 3, ts },
] as TimedEvent[];
const ROUTE = { event: 'route', from: 'go', to: 'done', seq: 4, ts } as TimedEvent;
const RESULT = { final_state: 'done', iterations: 1, terminated_by: 'terminal', duration_ms: 5, captured: {} };

/** A checkout at a new directory whose worker of this build is recorded as up. */
function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'll-rf-'));
  roots.push(root);
  mkdirSync(join(root, '.loops', '.worker'), { recursive: true });
  writeFileSync(
    workerRecordPath(root),
    JSON.stringify({ pid: process.pid, code_id: codeId(), address: `127.0.0.1:${PORT}`, root }),
  );
  return root;
}

/** A worker at `root` that sends `lines` once a follow request came, then ends (or breaks) the stream. */
async function workerAt(root: string, lines: string[], end: 'end' | 'break'): Promise<string[]> {
  const requests: string[] = [];
  mkdirSync(startSocketDir(root), { recursive: true });
  const server = createServer((socket) => {
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.once('data', (chunk: string) => {
      requests.push(chunk);
      for (const l of lines) socket.write(l);
      if (end === 'break') setImmediate(() => socket.destroy());
      else socket.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(startSocketPath(root), resolve));
  return requests;
}

/** `direct`, as far as following needs it: it delivers every event from the start, then the route, and the run's end. */
function followingDirect(asked: RunFollow[]): RunsService {
  const follow = async (req: RunFollow): Promise<FollowedRun> => {
    asked.push(req);
    for (const event of [...EVENTS, ROUTE]) req.onEvent(event);
    return {
      workflowId: req.workflowId,
      events: [...EVENTS, ROUTE],
      end: { status: 'completed', result: RESULT } as never,
      input: undefined,
      warnings: [],
    };
  };
  return { follow } as Partial<RunsService> as RunsService;
}

function follow(root: string, runs: RunsService, worker = { root, address: `127.0.0.1:${PORT}` } as WorkerRecord) {
  let out = '';
  let err = '';
  const run = followThroughItsWorker(
    {
      cwd: root,
      target: 'one',
      context: [],
      dryRun: false,
      noLlm: false,
      json: false,
      out: (t) => (out += t),
      err: (t) => (err += t),
    },
    {
      definition: def(
        loop({ go: { action: 'echo shown-once', next: 'done' }, done: { terminal: true } }, { name: 'one' }),
      ),
      started: {
        instanceId: 'one-1',
        taskQueue: 'q',
        runId: 'r',
        lock: undefined,
        place: { kind: 'checkout' },
        worker,
        by: 'worker',
        address: `127.0.0.1:${PORT}`,
        namespace: 'default',
        uiUrl: 'http://127.0.0.1:2',
      },
      interruption: undefined,
      follow: (req) => runs.follow(req),
    },
  );
  return { run, out: () => out, err: () => err };
}

describe('ll-loop run followed through the worker', () => {
  it("the run's end is the exit code, after its events; direct is not asked", async () => {
    const root = checkout();
    const requests = await workerAt(
      root,
      [
        ...EVENTS.map((event) => line({ kind: 'event', event })),
        line({ kind: 'disconnect', why: 'down' }),
        line({ kind: 'reconnect' }),
        line({ kind: 'note', text: 'note: waiting\n' }),
        line({
          kind: 'end',
          followed: {
            workflowId: 'one-1',
            end: { status: 'completed', result: RESULT } as never,
            input: undefined,
            warnings: [],
          },
        }),
      ],
      'end',
    );
    const asked: RunFollow[] = [];
    const f = follow(
      root,
      viaWorker(ENV, followingDirect(asked), async () => undefined),
    );
    expect(await f.run).toBe(0);
    expect(f.out()).toContain('run one-1 · http://127.0.0.1:2/namespaces/default/workflows/one-1');
    expect(f.out()).toContain('echo shown-once');
    expect(f.out()).toContain('Loop completed: done');
    expect(asked).toEqual([]);
    // The worker's notes on stderr, in the words of the history follower.
    expect(f.err()).toBe(
      'note: lost the connection to Temporal (down); the run is safe on the server, waiting for it to come back\n' +
        'note: reconnected to Temporal\nnote: waiting\n',
    );
    expect(JSON.parse(requests[0]!)).toMatchObject({
      kind: 'follow',
      workflow_id: 'one-1',
      first_run_id: 'r',
      action_output: true,
      file_wait_ms: 2000,
    });
  });

  it('a broken stream: the worker is brought back, and direct follows on without repeating the header or what was shown', async () => {
    const root = checkout();
    await workerAt(
      root,
      EVENTS.map((event) => line({ kind: 'event', event })),
      'break',
    );
    const asked: RunFollow[] = [];
    const back: string[] = [];
    const runs = viaWorker(ENV, followingDirect(asked), async (cwd, address) => void back.push(`${cwd} ${address}`));
    const f = follow(root, runs);
    expect(await f.run).toBe(0);
    expect(back).toEqual([`${root} 127.0.0.1:${PORT}`]);
    expect(asked.map((r) => [r.workflowId, r.firstRunId, r.fileWaitMs])).toEqual([['one-1', 'r', 2000]]);
    const out = f.out();
    expect(out.match(/run one-1/g)).toHaveLength(1);
    expect(out.match(/echo shown-once/g)).toHaveLength(1);
    expect(out).toContain('Loop completed: done');
  });

  it('no worker of this build for the checkout: direct follows, and no worker is brought up', async () => {
    const root = mkdtempSync(join(tmpdir(), 'll-rf-'));
    roots.push(root);
    const asked: RunFollow[] = [];
    const back: string[] = [];
    const f = follow(
      root,
      viaWorker(ENV, followingDirect(asked), async (cwd) => void back.push(cwd)),
    );
    expect(await f.run).toBe(0);
    expect([asked.length, back]).toEqual([1, []]);
    expect(f.out().match(/echo shown-once/g)).toHaveLength(1);
  });

  /** The worker of this build that started the run, as its start answered. */
  const starter = (root: string) => ({ root, address: `127.0.0.1:${PORT}`, code_id: codeId() }) as WorkerRecord;

  it("the worker that started the run is followed through though the checkout's record no longer shows it", async () => {
    const root = mkdtempSync(join(tmpdir(), 'll-rf-'));
    roots.push(root);
    const requests = await workerAt(
      root,
      [
        ...EVENTS.map((event) => line({ kind: 'event', event })),
        line({
          kind: 'end',
          followed: {
            workflowId: 'one-1',
            end: { status: 'completed', result: RESULT } as never,
            input: undefined,
            warnings: [],
          },
        }),
      ],
      'end',
    );
    const asked: RunFollow[] = [];
    const back: string[] = [];
    const f = follow(
      root,
      viaWorker(ENV, followingDirect(asked), async (cwd) => void back.push(cwd)),
      starter(root),
    );
    expect(await f.run).toBe(0);
    expect([requests.length, asked.length, back]).toEqual([1, 0, []]);
    expect(f.out()).toContain('Loop completed: done');
  });

  it('the worker that started the run is gone, its record with it: the worker is brought back, and direct follows', async () => {
    const root = mkdtempSync(join(tmpdir(), 'll-rf-'));
    roots.push(root);
    const asked: RunFollow[] = [];
    const back: string[] = [];
    const f = follow(
      root,
      viaWorker(ENV, followingDirect(asked), async (cwd) => void back.push(cwd)),
      starter(root),
    );
    expect(await f.run).toBe(0);
    // Followed on the caller's connection alone, the run would wait for a worker nobody starts.
    expect([asked.length, back]).toEqual([1, [root]]);
    expect(f.out().match(/echo shown-once/g)).toHaveLength(1);
  });
});

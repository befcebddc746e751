/**
 * `ll-loop run` following through the checkout worker (runs/start/run-followed.ts), against a
 * listener on the worker's real socket path speaking the follow wire: the run's end becomes the
 * exit code; when the stream breaks, the display the ordinary follower takes over shows neither
 * the header again nor the events already shown.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { FollowMessage } from '../../runs/transport/schemas.js';
import { followThroughItsWorker } from '../../runs/start/run-followed.js';
import { startSocketDir, startSocketPath } from '../../host/worker-socket.js';
import type { WorkerRecord } from '../../host/checkout.js';
import { def, loop } from './helpers.js';

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

/** A worker at `root` that sends `lines` once a follow request came, then ends (or breaks) the stream. */
async function workerAt(root: string, lines: string[], end: 'end' | 'break'): Promise<void> {
  mkdirSync(startSocketDir(root), { recursive: true });
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      for (const l of lines) socket.write(l);
      if (end === 'break') setImmediate(() => socket.destroy());
      else socket.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(startSocketPath(root), resolve));
}

function follow(root: string) {
  let out = '';
  const run = followThroughItsWorker(
    {
      cwd: root,
      target: 'one',
      context: [],
      dryRun: false,
      noLlm: false,
      json: false,
      out: (t) => (out += t),
      err: () => undefined,
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
        worker: { root, address: '127.0.0.1:1' } as WorkerRecord,
        namespace: 'default',
        uiUrl: 'http://127.0.0.1:2',
      },
      interruption: undefined,
    },
  );
  return { run, out: () => out };
}

describe('ll-loop run followed through the worker', () => {
  it("the run's end is the exit code, after its events", async () => {
    const root = mkdtempSync(join(tmpdir(), 'll-rf-'));
    roots.push(root);
    const result = { final_state: 'done', iterations: 1, terminated_by: 'terminal', duration_ms: 5, captured: {} };
    await workerAt(
      root,
      [
        ...EVENTS.map((event) => line({ kind: 'event', event })),
        line({
          kind: 'end',
          followed: {
            workflowId: 'one-1',
            end: { status: 'completed', result } as never,
            input: undefined,
            warnings: [],
          },
        }),
      ],
      'end',
    );
    const f = follow(root);
    expect(await f.run).toBe(0);
    expect(f.out()).toContain('run one-1 · http://127.0.0.1:2/namespaces/default/workflows/one-1');
    expect(f.out()).toContain('echo shown-once');
    expect(f.out()).toContain('Loop completed: done');
  });

  it('a broken stream hands over a display that repeats neither the header nor what it showed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'll-rf-'));
    roots.push(root);
    await workerAt(
      root,
      EVENTS.map((event) => line({ kind: 'event', event })),
      'break',
    );
    const f = follow(root);
    const outcome = await f.run;
    expect(typeof outcome).toBe('object');
    if (typeof outcome !== 'object') return;
    const before = f.out();
    expect(before.match(/run one-1/g)).toHaveLength(1);
    // The ordinary follower replays every event from the start, then the next ones.
    expect(outcome.reporter.onStart).toBeUndefined();
    for (const event of EVENTS) outcome.reporter.onEvent(event);
    expect(f.out()).toBe(before);
    outcome.reporter.onEvent({ event: 'route', from: 'go', to: 'done', seq: 4, ts } as TimedEvent);
    expect(f.out().slice(before.length)).toContain('done');
  });
});

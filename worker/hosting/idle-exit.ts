/**
 * A checkout's worker started on demand by a command exits once it has had nothing to do for
 * `LL_WORKER_IDLE_S` seconds (default 900; 0 never): no open run on its task queue (runs and
 * sub-loops, whatever their state: a run in a durable sleep or waiting for a person is open) and
 * no unpaused schedule that starts runs on it, with no event from a run in between. The checkout's
 * scope-lock workflow does not count: only this checkout's runs use it (its domain is the
 * checkout), so with none open it has nobody to serve, and the next worker lets it close. The
 * next command starts it again, as it does after a reboot (runs/workers/checkout-worker.ts), so
 * an idle machine does not keep a worker resident per checkout forever. A foreground worker and
 * one installed as a service serve until stopped: someone asked for them.
 *
 * Idleness is checked against Temporal's visibility (the source of truth for what is open, also
 * for runs this process never saw) at most every `checkEveryMs`; a run started since the last
 * check shows in the worker's own events first, which restart the clock.
 */
import type { Client } from '@temporalio/client';
import { LOOP_WORKFLOW_TYPE } from '../../workflows/definitions.js';
import { listLoopSchedules } from '../../runs/schedules/schedules.js';
import { spawnCheckoutWorker } from '../../runs/workers/checkout-worker.js';

const DEFAULT_IDLE_S = 900;

/** `LL_WORKER_IDLE_S`: seconds of nothing to do before an on-demand worker exits; undefined: never. */
export function idleSeconds(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.LL_WORKER_IDLE_S;
  const n = raw === undefined || raw.trim() === '' ? DEFAULT_IDLE_S : Number(raw);
  if (!Number.isFinite(n) || n < 0) return DEFAULT_IDLE_S;
  return n === 0 ? undefined : n;
}

/** Open workflows on the queue, or loop schedules that start runs there (unpaused). */
async function busyWith(client: Client, queue: string): Promise<string | undefined> {
  const quoted = queue.replace(/'/g, "\\'");
  const open = await client.workflow.count(
    `TaskQueue = '${quoted}' AND ExecutionStatus = 'Running' AND WorkflowType = '${LOOP_WORKFLOW_TYPE}'`,
  );
  if (open.count > 0) return `${open.count} open run(s)`;
  const schedules = await listLoopSchedules(client);
  const mine = schedules.filter((s) => s.taskQueue === queue && !s.paused);
  return mine.length ? `schedule ${mine[0]!.loop}` : undefined;
}

export interface IdleWatch {
  /** Resolves with the reason to drain once the worker has been idle for the idle time. */
  idle: Promise<string>;
  /** Whether `idle` has resolved. */
  readonly fired: boolean;
  stop(): void;
}

export function watchIdle(opts: {
  client: Client;
  queue: string;
  idleS: number;
  log: (line: string) => void;
  /** When the worker last saw a run's event (epoch ms): the idle clock starts again from it. */
  lastActivity: () => number;
  checkEveryMs?: number;
}): IdleWatch {
  const idleMs = opts.idleS * 1000;
  const every = opts.checkEveryMs ?? Math.min(60_000, Math.max(250, idleMs / 4));
  let since = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastBusy: string | undefined;
  const idle = new Promise<string>((resolve) => {
    const check = async (): Promise<void> => {
      if (stopped) return;
      since = Math.max(since, opts.lastActivity());
      try {
        const busy = await busyWith(opts.client, opts.queue);
        // Activity while visibility was asked (a command's start, a run's event) counts as well.
        since = Math.max(since, opts.lastActivity());
        if (busy) {
          since = Date.now();
          lastBusy = busy;
        } else if (Date.now() - since >= idleMs) {
          watch.fired = true;
          resolve(`idle for ${opts.idleS} s: no open run and no schedule on ${opts.queue} (LL_WORKER_IDLE_S)`);
          return;
        }
      } catch (err) {
        // The server is away: not idle, only unreachable (the server watch logs it).
        since = Date.now();
        if (lastBusy !== 'unreachable')
          opts.log(`could not tell whether the worker is idle: ${(err as Error).message}`);
        lastBusy = 'unreachable';
      }
      if (!stopped) timer = setTimeout(() => void check(), every).unref();
    };
    timer = setTimeout(() => void check(), every).unref();
  });
  const watch = {
    idle,
    fired: false,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
  return watch;
}

/** How long Temporal's visibility may lag behind a workflow's start (the dev server's is about 1 s). */
const VISIBILITY_LAG_MS = 1500;

/**
 * After an idle worker stopped polling: when a run was started on its queue meanwhile (after its
 * last look), start a successor, as the next command would, so that run does not wait for one.
 */
export async function handOverIfBusy(
  client: Client,
  queue: string,
  cwd: string,
  root: string,
  log: (line: string) => void,
): Promise<void> {
  await new Promise((r) => setTimeout(r, VISIBILITY_LAG_MS));
  const busy = await busyWith(client, queue).catch(() => undefined);
  if (!busy) return;
  log(`${busy} appeared while stopping: starting a successor`);
  spawnCheckoutWorker(cwd, root);
}

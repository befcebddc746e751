/**
 * `ll-loop run` once its loop is loaded (run-loop.ts): connect (embedded dev server by default),
 * start the loop workflow on the queue of the checkout's worker (started on demand:
 * runs/workers/checkout-worker.ts) or of a `--task-queue` pool — unless the checkout's worker
 * already started it (early-start.ts, start-through-worker.ts) —, then follow it to its end and
 * exit with its outcome, or return at once with `--background`. The run never depends on this process:
 * closing the terminal leaves it going; Ctrl-C stops it. The progress shown is the run's event
 * stream (runs/follow/follow-run.ts).
 */
import { scopesSettled } from '../scopes/scopes-settled.js';
import type { Client, Connection } from '@temporalio/client';
import type { LoopDefinition } from '../../fsm/schema.js';
import { hostId, type WorkerRecord } from '../../host/checkout.js';
import { placeRun, type Placed, type RunPlace } from './where-to-run.js';
import { ensureCheckoutWorker } from '../workers/checkout-worker.js';
import { queueWorkers } from '../workers/queue-pollers.js';
import {
  clientFor,
  resolveEndpoint,
  resolveTemporalTarget,
  TemporalUnavailableError,
  type TemporalEndpoint,
} from '../../temporal/connection.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import type { loopWorkflow } from '../../workflows/loop-workflow.js';
import { noteWhileQueued } from './queue-note.js';
import { lockRequestFor } from '../scopes/scope-lock.js';
import { embeddedServerOptions } from '../../temporal/embedded.js';
import { CliError, InfrastructureError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { armInterrupt, type Interrupt } from '../follow/interrupt.js';
import { runInfo } from '../find/run-info.js';
import { searchAttributesAvailable, startLoopRun, type LoopHandle } from './start-run.js';
import type { RunOptions } from './run-options.js';
import type { PortableCheckout } from '../../workflows/run-options.js';
import type { StartedByWorker } from './start-through-worker.js';
import type { Reporter } from '../../reporters/reporter.js';
import { printBackgroundStart } from './background-start.js';

type Endpoint = TemporalEndpoint & { uiUrl?: string };

/** What run-loop.ts hands over: the loaded loop, and the run when the checkout's worker started it. */
export interface LoadedRun {
  definition: LoopDefinition;
  file: string;
  dataContext: string[];
  /** The command's environment as it was invoked (host/run-env.ts). */
  env: NodeJS.ProcessEnv;
  interruption: { interrupt: Interrupt } | undefined;
  startedByWorker: StartedByWorker | undefined;
  /** The display the worker's follower started (run-followed.ts), when it could not go on. */
  reporter?: Reporter;
}

/**
 * The run's scope lock: in its checkout's domain (a portable run: its repository's), granted by
 * the lock workflow on the queue that serves the run's workflow (the checkout's worker, or the pool).
 */
function lockOf(opts: RunOptions, definition: LoopDefinition, placed: Placed): ScopeLockRequest | undefined {
  if (opts.noLock) return undefined;
  return lockRequestFor(
    definition,
    { root: placed.checkout.root, lockDomain: placed.lockDomain, queue: placed.queue },
    { wait: opts.queue === true, ...(opts.queueTimeoutS === undefined ? {} : { queueTimeoutS: opts.queueTimeoutS }) },
  );
}

/** The started run, by whichever side started it, and what the rest of `run` needs of it. */
interface Started {
  handle: LoopHandle;
  instanceId: string;
  taskQueue: string;
  lock: ScopeLockRequest | undefined;
  place: RunPlace;
  worker: Promise<WorkerRecord | undefined>;
  /** A portable run's source and branch (`--worktree`: its worktree is looked for at the end). */
  portable?: PortableCheckout;
}

/** Start the run (unless the checkout's worker did) on this command's connection. */
async function startHere(
  opts: RunOptions,
  run: LoadedRun,
  client: Client,
  connection: Connection,
  endpoint: Endpoint,
): Promise<Started> {
  const byWorker = run.startedByWorker;
  if (byWorker) {
    const handle = client.workflow.getHandle<typeof loopWorkflow>(byWorker.instanceId, undefined, {
      firstExecutionRunId: byWorker.runId,
    }) as LoopHandle;
    const { instanceId, taskQueue, lock, worker } = byWorker;
    // The worker's stream broke (run.reporter): that worker may be gone, and the run needs one to
    // go on. The checkout's worker is brought up again, as every command brings it (none else would).
    const serving = run.reporter
      ? ensureCheckoutWorker(opts.cwd, endpoint.address).catch(() => worker)
      : Promise.resolve(worker);
    return { handle, instanceId, taskQueue, lock, place: { kind: 'checkout' }, worker: serving };
  }
  // The checkout's worker (when it must serve the run) starts concurrently: time to the first action counts.
  const placed = await placeRun(opts.place ?? { kind: 'checkout' }, opts.cwd, endpoint.address);
  const lock = lockOf(opts, run.definition, placed);
  const searchAttributes = await searchAttributesAvailable(endpoint, connection, opts.err);
  const started = await startLoopRun({
    client,
    definition: run.definition,
    file: run.file,
    cwd: opts.cwd,
    taskQueue: placed.queue,
    options: placed.optionsFor,
    memo: placed.memo,
    searchAttributes,
    started: new Date(),
    lock,
    env: run.env,
    dataContext: run.dataContext,
  });
  const { portable } = placed.optionsFor(started.instanceId);
  return { ...started, lock, place: placed.place, worker: placed.worker, ...(portable ? { portable } : {}) };
}

/** Run a loaded loop (to its end, unless `--background`). Returns the process exit code. */
export async function runLoaded(opts: RunOptions, run: LoadedRun): Promise<number> {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  const { definition, interruption } = run;
  // One connection: the one that found the embedded server running, when it was.
  const { connection: handedOver, ...endpoint } = await connectOrExplain(opts.cwd);
  const { client, connection } = await clientFor({ ...endpoint, ...(handedOver ? { connection: handedOver } : {}) });
  try {
    const {
      handle,
      instanceId,
      taskQueue,
      lock,
      place,
      worker: serving,
      portable,
    } = await startHere(opts, run, client, connection, endpoint);
    if (interruption) armInterrupt(interruption.interrupt, () => handle.cancel());
    noteWhileQueued(client, instanceId, lock, err);
    // Loaded only now, while the worker takes the run's first task: nothing before the start needs it.
    const following = opts.background ? undefined : loadFollowing();
    following?.catch(() => undefined);
    const worker = await serving.catch(async (e: unknown) => {
      // Nothing can run the workflow without a worker: end it rather than leave it waiting.
      await handle.terminate(`ll-loop could not start a worker for it: ${(e as Error).message}`).catch(() => undefined);
      throw e;
    });
    if (place.kind !== 'checkout' && place.kind !== 'worktree') await warnWhenUnserved(client, taskQueue, place, err);
    if (opts.background) {
      // Nobody follows it: a denial of its scopes is reported here (exit 8), not left for status.
      await scopesSettled(client, instanceId, lock);
      const started = {
        instanceId,
        taskQueue,
        worker,
        cwd: opts.cwd,
        uiUrl: runInfo(endpoint, opts.cwd, instanceId).uiUrl,
      };
      if (opts.onBackgroundStart) opts.onBackgroundStart(started);
      else printBackgroundStart(out, opts.json, started);
      return EXIT.ok;
    }
    const { createReporter, followRun } = await (following ?? loadFollowing());
    const asker = opts.ask && !opts.json ? await inlineQuestions(client, connection, instanceId, opts.cwd) : undefined;
    const shown = run.reporter ?? createReporter(opts.json, out, definition.max_iterations, opts.colour, opts.detail);
    const kept =
      place.kind === 'worktree' && portable ? await keptWorktreeReport(shown, opts.json, out, portable) : undefined;
    try {
      return await followRun({
        client,
        workflowId: instanceId,
        reporter: kept?.reporter ?? shown,
        info: runInfo(endpoint, opts.cwd, instanceId),
        err,
        localWriter: worker !== undefined && worker.host === hostId() && place.kind === 'checkout',
        ...(asker ? { onEvent: asker.onEvent } : {}),
      });
    } finally {
      asker?.close();
      await kept?.flush();
    }
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** A `--worktree` run's display, which tells at the end where a kept worktree is (kept-worktree-note.ts). */
async function keptWorktreeReport(
  shown: Reporter,
  json: boolean,
  out: (t: string) => void,
  portable: PortableCheckout,
) {
  const [{ reportKeptWorktree }, { keptWorktree }] = await Promise.all([
    import('./kept-worktree-note.js'),
    import('../../worker/portable.js'),
  ]);
  const { repository, branch, commit } = portable;
  return reportKeptWorktree(shown, { json, commit, out, look: () => keptWorktree({ repository, branch, commit }) });
}

/** The inline asker of human states' questions, on this process's terminal. */
async function inlineQuestions(client: Client, connection: Connection, runId: string, cwd: string) {
  const [{ inlineAsker }, { projectScope }] = await Promise.all([
    import('../human/inline-ask.js'),
    import('../find/find-runs.js'),
  ]);
  return inlineAsker({
    session: { client, connection },
    runId,
    project: projectScope(cwd),
    input: process.stdin,
    output: process.stdout,
  });
}

/**
 * What following a run needs, loaded after its start. The worker SDK (history replay) is not part
 * of it: the follower loads it only when it must replay (runs/follow/lazy-replayer.ts), and the
 * runtime it then installs has no signal handlers of its own (Ctrl-C is ours: follow/interrupt.ts).
 */
async function loadFollowing(): Promise<typeof import('../follow/follow-run.js')> {
  return import('../follow/follow-run.js');
}

/** Say at once when no worker polls a pool's or shared queue: the run waits there until one does. */
async function warnWhenUnserved(
  client: Client,
  taskQueue: string,
  place: RunPlace,
  err: (t: string) => void,
): Promise<void> {
  const how =
    place.kind === 'pinned' || place.kind === 'portable'
      ? `ll-loop worker --pool ${place.pool}`
      : `ll-loop worker --task-queue ${taskQueue}`;
  // Bounded: a slow answer must not hold the run's progress back.
  const asked = queueWorkers(client, taskQueue)
    .then((workers) => {
      if (workers.length === 0)
        err(
          `note: no worker serves ${place.kind === 'queue' ? `task queue ${taskQueue}` : `pool ${(place as { pool: string }).pool}`} yet; the run waits until one does. Start one with: ${how}\n`,
        );
    })
    .catch(() => undefined);
  await Promise.race([asked, new Promise((r) => setTimeout(r, 3000).unref())]);
}

async function connectOrExplain(cwd: string): Promise<Endpoint & { connection?: Connection }> {
  try {
    return await resolveEndpoint(resolveTemporalTarget(), { ...embeddedServerOptions(cwd), keepConnection: true });
  } catch (err) {
    if (err instanceof CliError) throw err;
    if (err instanceof TemporalUnavailableError) throw new InfrastructureError(err.message);
    throw new InfrastructureError(`cannot start or reach Temporal: ${(err as Error).message}`, 'see docs/temporal.md');
  }
}

/**
 * `ll-loop run <name|path>`: validate, connect (embedded dev server by default), start the loop
 * workflow on the queue of the checkout's worker (started on demand: client/hosting/checkout-worker.ts)
 * or of a `--task-queue` pool, then follow it to its end and exit with its outcome, or return at
 * once with `--background`. The run never depends on this process: closing the terminal leaves
 * it going; Ctrl-C stops it. The progress shown is the run's event stream, read from its
 * history (runs/follow-run.ts).
 */
import { relative } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import type { LoopDefinition } from '../../fsm/schema.js';
import { hostId, workerLogPath, type WorkerRecord } from '../../host/checkout.js';
import { placeRun, type RunPlace } from './where-to-run.js';
import { queueWorkers } from '../hosting/queue-pollers.js';
import {
  clientFor,
  resolveEndpoint,
  resolveTemporalTarget,
  TemporalUnavailableError,
  type TemporalEndpoint,
} from '../temporal/connection.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import { noteWhileQueued } from './queue-note.js';
import { lockRequestFor } from '../scopes/scope-lock.js';
import type { Placed } from './where-to-run.js';
import { embeddedServerOptions } from '../temporal/embedded.js';
import { CliError, InfrastructureError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { armInterrupt, interruptible } from '../follow/interrupt.js';
import { runInfo } from '../runs/run-info.js';
import { loadLoop, parseContextArgs } from '../../loader/load.js';
import { commandLineDataKeys } from '../../fsm/definition/parameters.js';
import { searchAttributesAvailable, startLoopRun } from './start-run.js';
import { printPlan } from './dry-run.js';
import { printDiagnostics } from '../reporters/diagnostics.js';
import type { Detail } from '../reporters/human.js';
import { checkProviderKeys } from './provider-keys.js';

export { DEFAULT_LOCAL_ACTIVITY_MAX_TIMEOUT_S, instanceIdFor } from './start-run.js';

export interface RunOptions {
  cwd: string;
  target: string;
  maxIterations?: number;
  context: string[];
  /** `--context-allow-unknown`: hand the loop `--context` keys it does not use. */
  allowUnknownContext?: boolean;
  dryRun: boolean;
  noLlm: boolean;
  llmModel?: string;
  json: boolean;
  /** Start, hand the run to a worker outside this process, and return at once. */
  background?: boolean;
  /** Where the run goes (client/start/where-to-run.ts); default: the checkout's worker. */
  place?: RunPlace;
  /** `--queue`: wait in FIFO order for busy scopes (else a busy scope ends the run, exit 8). */
  queue?: boolean;
  /** `--queue-timeout`: give up waiting after this many seconds. */
  queueTimeoutS?: number;
  /** `--no-lock`: take no scope lock at all (dangerous: overlapping runs work at once). */
  noLock?: boolean;
  /** Ask human states' questions inline (stdin and stdout are a terminal; client/human/inline-ask.ts). */
  ask?: boolean;
  /** Colour in the progress display (stdout is a terminal that wants it). */
  colour?: boolean;
  /** `--verbose` / `--quiet`: how much of the progress display (client/reporters/human.ts). */
  detail?: Detail;
  out?: (text: string) => void;
  err?: (text: string) => void;
}

type Endpoint = TemporalEndpoint & { uiUrl?: string };

function load(opts: RunOptions): { definition: LoopDefinition; file: string; dataContext: string[] } {
  const context = parseContextArgs(opts.context);
  const overrides = {
    context,
    noLlm: opts.noLlm,
    requireParameters: true,
    refuseUnusedContext: opts.allowUnknownContext !== true,
    ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
    ...(opts.llmModel === undefined ? {} : { llmModel: opts.llmModel }),
  };
  const loaded = loadLoop(opts.target, opts.cwd, overrides);
  if (!loaded.definition) {
    printDiagnostics(
      loaded.diagnostics,
      opts.json,
      opts.out ?? ((t) => process.stdout.write(t)),
      opts.err ?? ((t) => process.stderr.write(t)),
    );
    throw new CliError(
      `${loaded.file} is not a valid loop; nothing was run`,
      'fix the errors above, then run again',
      EXIT.usage,
    );
  }
  // Values from the command line are data in shell actions, not code (docs/decisions.md).
  return {
    definition: loaded.definition,
    file: loaded.file,
    dataContext: commandLineDataKeys(loaded.definition, context),
  };
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

/** Run a loop (to its end, unless `--background`). Returns the process exit code. */
export async function runCommand(opts: RunOptions): Promise<number> {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  // The run's actions see the environment of this command as it was invoked (host/run-env.ts).
  const env = { ...process.env };
  const { definition, file, dataContext } = load(opts);
  if (opts.dryRun) {
    printPlan(definition, opts.json, out);
    return EXIT.ok;
  }
  checkProviderKeys(definition, env);
  // Ctrl-C from here on is a graceful stop: before the workflow exists it is noted, after, it
  // cancels the run (which kills its action and records the outcome). A closed terminal (SIGHUP)
  // ends only this process: the run goes on in its worker.
  const interruption = opts.background ? undefined : interruptible(opts.err);
  try {
    // One connection: the one that found the embedded server running, when it was.
    const { connection: handedOver, ...endpoint } = await connectOrExplain(opts.cwd);
    const { client, connection } = await clientFor({ ...endpoint, ...(handedOver ? { connection: handedOver } : {}) });
    try {
      // The checkout's worker (when it must serve the run) starts concurrently: time to the first action counts.
      const placed = await placeRun(opts.place ?? { kind: 'checkout' }, opts.cwd, endpoint.address);
      const lock = lockOf(opts, definition, placed);
      const searchAttributes = await searchAttributesAvailable(endpoint, connection, opts.err);
      const { handle, instanceId, taskQueue } = await startLoopRun({
        client,
        definition,
        file,
        cwd: opts.cwd,
        taskQueue: placed.queue,
        options: placed.optionsFor,
        memo: placed.memo,
        searchAttributes,
        started: new Date(),
        lock,
        env,
        dataContext,
      });
      if (interruption) armInterrupt(interruption.interrupt, () => handle.cancel());
      noteWhileQueued(client, instanceId, lock, err);
      // Loaded only now, while the worker takes the run's first task: nothing before the start needs it.
      const following = opts.background ? undefined : loadFollowing();
      following?.catch(() => undefined);
      const worker = await placed.worker.catch(async (e: unknown) => {
        // Nothing can run the workflow without a worker: end it rather than leave it waiting.
        await handle
          .terminate(`ll-loop could not start a worker for it: ${(e as Error).message}`)
          .catch(() => undefined);
        throw e;
      });
      if (placed.place.kind !== 'checkout' && placed.place.kind !== 'worktree')
        await warnWhenUnserved(client, taskQueue, placed.place, err);
      if (opts.background) {
        printBackgroundStart(out, opts.json, {
          instanceId,
          taskQueue,
          worker,
          cwd: opts.cwd,
          uiUrl: runInfo(endpoint, opts.cwd, instanceId).uiUrl,
        });
        return EXIT.ok;
      }
      const { createReporter, followRun } = await (following ?? loadFollowing());
      const asker =
        opts.ask && !opts.json ? await inlineQuestions(client, connection, instanceId, opts.cwd) : undefined;
      try {
        return await followRun({
          client,
          workflowId: instanceId,
          reporter: createReporter(opts.json, out, definition.max_iterations, opts.colour, opts.detail),
          info: runInfo(endpoint, opts.cwd, instanceId),
          err,
          localWriter: worker !== undefined && worker.host === hostId() && placed.place.kind === 'checkout',
          ...(asker ? { onEvent: asker.onEvent } : {}),
        });
      } finally {
        asker?.close();
      }
    } finally {
      await connection.close().catch(() => undefined);
    }
  } finally {
    interruption?.stop();
  }
}

/** The inline asker of human states' questions, on this process's terminal. */
async function inlineQuestions(client: Client, connection: Connection, runId: string, cwd: string) {
  const [{ inlineAsker }, { projectScope }] = await Promise.all([
    import('../human/inline-ask.js'),
    import('../runs/find-runs.js'),
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
 * of it: the follower loads it only when it must replay (client/follow/lazy-replayer.ts), and the
 * runtime it then installs has no signal handlers of its own (Ctrl-C is ours: follow/interrupt.ts).
 */
async function loadFollowing(): Promise<typeof import('../follow/follow-run.js')> {
  return import('../follow/follow-run.js');
}

function printBackgroundStart(
  out: (t: string) => void,
  json: boolean,
  r: {
    instanceId: string;
    taskQueue: string;
    worker: WorkerRecord | undefined;
    cwd: string;
    uiUrl: string | undefined;
  },
): void {
  if (json) {
    out(
      `${JSON.stringify({ instance_id: r.instanceId, task_queue: r.taskQueue, worker_pid: r.worker?.pid ?? null, worker_host: r.worker?.host ?? null })}\n`,
    );
    return;
  }
  out(`started ${r.instanceId} in the background\n`);
  if (r.worker)
    out(
      `  worker: pid ${r.worker.pid} on ${r.worker.host} serves this checkout (log ${relative(r.cwd, workerLogPath(r.worker.root)) || workerLogPath(r.worker.root)}); the run goes on when this terminal closes\n`,
    );
  else
    out(
      `  queued on task queue ${r.taskQueue}; it runs once a worker polls it: ll-loop worker --task-queue ${r.taskQueue}\n`,
    );
  if (r.uiUrl) out(`  Web UI: ${r.uiUrl}\n`);
  out(`  follow: ll-loop status ${r.instanceId} --follow\n  stop:   ll-loop stop ${r.instanceId}\n`);
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

export { UsageError };

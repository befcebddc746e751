/**
 * `ll-loop run <name|path>`: validate, connect (embedded dev server by default), start the loop
 * workflow, and then, by mode:
 * - default: run a worker for it in this process, show progress, exit with the run's outcome;
 * - `--background`: hand it to a detached `ll-loop worker` process and return at once;
 * - `--task-queue Q`: send it to a shared pool of workers (`ll-loop worker --task-queue Q`) and
 *   follow it (or return at once with `--background`).
 * Either way the progress shown is the run's event stream, read from its history
 * (runs/follow-run.ts).
 */
import { relative } from 'node:path';
import type { Client } from '@temporalio/client';
import type { LoopDefinition } from '../../fsm/schema.js';
import { checkoutAt } from '../../worker/checkout.js';
import { createLoopWorker, installQuietRuntime } from '../../worker/create-worker.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import { noteWhileQueued, serveLockQueue, spawnLockQueueWorker } from '../runs/lock-bridge.js';
import { lockRequestFor } from '../runs/scope-lock.js';
import { spawnBackgroundWorker } from '../runs/background.js';
import { connectClient, connectWorkerConnection, resolveEndpoint, resolveTemporalTarget, TemporalUnavailableError, type TemporalEndpoint } from '../temporal/connection.js';
import { embeddedServerOptions } from '../temporal/embedded.js';
import { CliError, InfrastructureError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { createReporter, followRun, runInfo } from '../runs/follow-run.js';
import { armInterrupt, interruptible, type Interrupt } from '../runs/interrupt.js';
import { loadLoop, parseContextArgs } from '../../loader/load.js';
import { searchAttributesAvailable, startLoopRun } from '../runs/start-run.js';
import { printPlan } from './dry-run.js';
import { printDiagnostics } from '../reporters/diagnostics.js';

export { DEFAULT_LOCAL_ACTIVITY_MAX_TIMEOUT_S, instanceIdFor } from '../runs/start-run.js';

export interface RunOptions {
  cwd: string;
  target: string;
  maxIterations?: number;
  context: string[];
  dryRun: boolean;
  noLlm: boolean;
  llmModel?: string;
  json: boolean;
  /** Start, hand the run to a worker outside this process, and return at once. */
  background?: boolean;
  /** A shared task queue served by `ll-loop worker` instead of this process's own worker. */
  taskQueue?: string;
  /** `--queue`: wait in FIFO order for busy scopes (else a busy scope ends the run, exit 8). */
  queue?: boolean;
  /** `--queue-timeout`: give up waiting after this many seconds. */
  queueTimeoutS?: number;
  /** `--no-lock`: take no scope lock at all (dangerous: overlapping runs work at once). */
  noLock?: boolean;
  /** Colour in the progress display (stdout is a terminal that wants it). */
  colour?: boolean;
  out?: (text: string) => void;
  err?: (text: string) => void;
}

type Endpoint = TemporalEndpoint & { uiUrl?: string };

function load(opts: RunOptions): { definition: LoopDefinition; file: string } {
  const overrides = {
    context: parseContextArgs(opts.context),
    noLlm: opts.noLlm,
    requireParameters: true,
    ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
    ...(opts.llmModel === undefined ? {} : { llmModel: opts.llmModel }),
  };
  const loaded = loadLoop(opts.target, opts.cwd, overrides);
  if (!loaded.definition) {
    printDiagnostics(loaded.diagnostics, opts.json, opts.out ?? ((t) => process.stdout.write(t)), opts.err ?? ((t) => process.stderr.write(t)));
    throw new CliError(`${loaded.file} is not a valid loop; nothing was run`, 'fix the errors above, then run again', EXIT.usage);
  }
  return { definition: loaded.definition, file: loaded.file };
}

/** The run's scope lock in the checkout it starts in, unless `--no-lock`. */
function lockOf(opts: RunOptions, definition: LoopDefinition): ScopeLockRequest | undefined {
  if (opts.noLock) return undefined;
  return lockRequestFor(definition, checkoutAt(opts.cwd), { wait: opts.queue === true, ...(opts.queueTimeoutS === undefined ? {} : { queueTimeoutS: opts.queueTimeoutS }) });
}

/** Run a loop (to its end, unless `--background`). Returns the process exit code. */
export async function runCommand(opts: RunOptions): Promise<number> {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  const { definition, file } = load(opts);
  if (opts.dryRun) {
    printPlan(definition, opts.json, out);
    return EXIT.ok;
  }
  installQuietRuntime();
  if (opts.background) return runInBackground(opts, definition, file, out);
  // Ctrl-C from here on is a graceful stop: before the workflow exists it is noted, after, it
  // cancels the run (which kills its action and records the outcome).
  const { interrupt, stop } = interruptible(opts.err);
  try {
    return opts.taskQueue === undefined
      ? await runHere(opts, definition, file, out, interrupt)
      : await runOnSharedQueue(opts, opts.taskQueue, definition, file, out, interrupt);
  } finally {
    stop();
  }
}

/** The default: this process runs the worker for the run's own task queue. */
async function runHere(opts: RunOptions, definition: LoopDefinition, file: string, out: (t: string) => void, interrupt: Interrupt): Promise<number> {
  const endpoint = await connectOrExplain(opts.cwd);
  // The two connections open concurrently: time to the first action counts.
  const [{ client, connection }, native] = await Promise.all([connectClient(endpoint), connectWorkerConnection(endpoint)]);
  try {
    const searchAttributes = await searchAttributesAvailable(endpoint, connection);
    // The worker's queue is known only once the run's id is (`-2` on a clash), so it follows the start.
    const lock = lockOf(opts, definition);
    const { handle, instanceId, taskQueue } = await startLoopRun({ client, definition, file, cwd: opts.cwd, searchAttributes, started: new Date(), lock });
    armInterrupt(interrupt, () => handle.cancel());
    const [{ worker, events }, lockQueue] = await Promise.all([
      createLoopWorker({ connection: native, namespace: endpoint.namespace, taskQueue }),
      serveLockQueue(lock, { endpoint, connection: native }),
    ]).catch(async (err: unknown) => {
      // Nothing can run the workflow without this worker: end it rather than leave it waiting.
      await handle.terminate(`ll-loop could not start its worker: ${(err as Error).message}`).catch(() => undefined);
      throw err;
    });
    noteWhileQueued(client, instanceId, lock, opts.err ?? ((t) => process.stderr.write(t)));
    try {
      return await followRun({
        client,
        workflowId: instanceId,
        worker: lockQueue.alongside(worker),
        reporter: createReporter(opts.json, out, definition.max_iterations, opts.colour),
        info: runInfo(endpoint, opts.cwd, instanceId),
        err: opts.err ?? ((t) => process.stderr.write(t)),
      });
    } finally {
      await events.close();
      await lockQueue.close();
    }
  } finally {
    await native.close().catch(() => undefined);
    await connection.close().catch(() => undefined);
  }
}

/** `--task-queue Q` without `--background`: a worker pool runs it; this process follows it. */
async function runOnSharedQueue(opts: RunOptions, taskQueue: string, definition: LoopDefinition, file: string, out: (t: string) => void, interrupt: Interrupt): Promise<number> {
  const endpoint = await connectOrExplain(opts.cwd);
  const { client, connection } = await connectClient(endpoint);
  try {
    const searchAttributes = await searchAttributesAvailable(endpoint, connection);
    const lock = lockOf(opts, definition);
    const { handle, instanceId } = await startLoopRun({ client, definition, file, cwd: opts.cwd, taskQueue, searchAttributes, started: new Date(), lock });
    armInterrupt(interrupt, () => handle.cancel());
    const err = opts.err ?? ((t: string) => process.stderr.write(t));
    warnWhenUnserved(client, taskQueue, err);
    const lockQueue = await serveLockQueue(lock, { endpoint });
    try {
      return await followRun({
        client,
        workflowId: instanceId,
        worker: lockQueue.alongside(undefined),
        reporter: createReporter(opts.json, out, definition.max_iterations, opts.colour),
        info: runInfo(endpoint, opts.cwd, instanceId),
        err,
      });
    } finally {
      await lockQueue.close();
    }
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** `--background`: start, spawn a detached worker (unless a shared queue serves it), return. */
async function runInBackground(opts: RunOptions, definition: LoopDefinition, file: string, out: (t: string) => void): Promise<number> {
  const endpoint = await connectOrExplain(opts.cwd);
  const { client, connection } = await connectClient(endpoint);
  try {
    const searchAttributes = await searchAttributesAvailable(endpoint, connection);
    const lock = lockOf(opts, definition);
    const { handle, instanceId, taskQueue } = await startLoopRun({
      client,
      definition,
      file,
      cwd: opts.cwd,
      taskQueue: opts.taskQueue,
      searchAttributes,
      started: new Date(),
      lock,
    });
    let worker: { pid: number; logFile: string } | undefined;
    try {
      if (opts.taskQueue === undefined) worker = spawnBackgroundWorker(opts.cwd, taskQueue, instanceId);
      spawnLockQueueWorker(opts.cwd, lock, instanceId);
    } catch (err) {
      await handle.terminate(`ll-loop could not start its background worker: ${(err as Error).message}`).catch(() => undefined);
      throw err;
    }
    printBackgroundStart(out, opts.json, { instanceId, taskQueue, worker, cwd: opts.cwd, uiUrl: runInfo(endpoint, opts.cwd, instanceId).uiUrl });
    return EXIT.ok;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

function printBackgroundStart(
  out: (t: string) => void,
  json: boolean,
  r: { instanceId: string; taskQueue: string; worker: { pid: number; logFile: string } | undefined; cwd: string; uiUrl: string | undefined },
): void {
  if (json) {
    out(`${JSON.stringify({ instance_id: r.instanceId, task_queue: r.taskQueue, worker_pid: r.worker?.pid ?? null })}\n`);
    return;
  }
  out(`started ${r.instanceId} in the background\n`);
  if (r.worker) out(`  worker: pid ${r.worker.pid}, log ${relative(r.cwd, r.worker.logFile)}\n`);
  else out(`  queued on task queue ${r.taskQueue}; it runs once a worker polls it: ll-loop worker --task-queue ${r.taskQueue}\n`);
  if (r.uiUrl) out(`  Web UI: ${r.uiUrl}\n`);
  out(`  follow: ll-loop status ${r.instanceId} --follow\n  stop:   ll-loop stop ${r.instanceId}\n`);
}

/** Say once when no worker polls a shared queue: the run waits there until one does. */
function warnWhenUnserved(client: Client, taskQueue: string, err: (t: string) => void): void {
  void client.workflowService
    .describeTaskQueue({ namespace: client.options.namespace, taskQueue: { name: taskQueue }, taskQueueType: 1 })
    .then((res) => {
      if ((res.pollers ?? []).length === 0) err(`note: no worker polls task queue ${taskQueue} yet; start one with: ll-loop worker --task-queue ${taskQueue}\n`);
    })
    .catch(() => undefined);
}

async function connectOrExplain(cwd: string): Promise<Endpoint> {
  try {
    return await resolveEndpoint(resolveTemporalTarget(), embeddedServerOptions(cwd));
  } catch (err) {
    if (err instanceof CliError) throw err;
    if (err instanceof TemporalUnavailableError) throw new InfrastructureError(err.message);
    throw new InfrastructureError(`cannot start or reach Temporal: ${(err as Error).message}`, 'see docs/temporal.md');
  }
}

export { UsageError };

/**
 * `ll-loop worker [--task-queue Q] [--until-closed <workflow-id>]`: a long-running worker process
 * for a task queue, for runs started with `run --task-queue Q` (a shared pool, default queue
 * `ll-loop`) or `run --background` (one run's own queue, until that run closes). It logs a line
 * per run it starts, picks up or finishes, and shuts down gracefully on SIGINT/SIGTERM.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { createLoopWorker, installQuietRuntime } from '../../worker/create-worker.js';
import { startRunEnvSweeps } from '../../worker/run-env-sweep.js';
import { serverKey } from '../../worker/run-env.js';
import { LoggingEventHub } from './worker-log.js';
import { awaitClosed } from '../runs/await-result.js';
import { connectWorkerConnection } from '../temporal/connection.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { openSession } from '../temporal/session.js';
import { watchSessionServer } from '../temporal/server-watch.js';

export interface WorkerOptions {
  cwd: string;
  taskQueue: string;
  /** Exit once this workflow has closed (the background worker of one run). */
  untilClosed?: string;
  out: (text: string) => void;
}

/** `--until-closed` names a workflow that does not exist. */
export class WorkerTargetNotFoundError extends CliError {
  override readonly name = 'WorkerTargetNotFoundError';
  constructor(id: string) {
    super(
      `no run ${id} on this Temporal server; nothing to work for`,
      'check the run id with ll-loop list --running, or drop --until-closed',
      EXIT.usage,
    );
  }
}

/** Run the worker until a signal (or the `--until-closed` run closes). Returns the exit code. */
export async function workerCommand(opts: WorkerOptions): Promise<number> {
  const log = (line: string) => opts.out(`${new Date().toISOString()} ${line}\n`);
  installQuietRuntime();
  const session = await openSession(opts.cwd);
  let native: NativeConnection | undefined;
  try {
    const target = opts.untilClosed === undefined ? undefined : session.client.workflow.getHandle(opts.untilClosed);
    if (target) {
      const description = await target.describe().catch((err: unknown) => {
        throw err instanceof WorkflowNotFoundError ? new WorkerTargetNotFoundError(opts.untilClosed!) : err;
      });
      if (description.status.name !== 'RUNNING') {
        log(`${target.workflowId} is already closed (${description.status.name.toLowerCase()}); nothing to do`);
        return EXIT.ok;
      }
    }
    native = await connectWorkerConnection(session.endpoint);
    const events = new LoggingEventHub(log);
    const { worker } = await createLoopWorker({
      connection: native,
      namespace: session.endpoint.namespace,
      taskQueue: opts.taskQueue,
      events,
    });
    // Environment files of runs that ended out of any worker's sight (worker/run-env-sweep.ts).
    const stopSweeps = startRunEnvSweeps({
      client: session.client,
      server: serverKey(session.endpoint.address, session.endpoint.namespace),
      log,
    });
    let stopping = false;
    const shutdown = (why: string, interrupted: boolean) => {
      if (stopping) return;
      stopping = true;
      log(
        `shutting down (${why})${interrupted ? '; running actions get 2 s to finish, then are killed and retried by the next worker' : ''}`,
      );
      worker.shutdown();
    };
    const onSignal = (signal: NodeJS.Signals) => (stopping ? process.exit(EXIT.cancelled) : shutdown(signal, true));
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const running = worker.run();
    log(
      `worker pid ${process.pid} polling task queue ${opts.taskQueue} on ${session.endpoint.address} (namespace ${session.endpoint.namespace})${target ? ` until ${target.workflowId} closes` : ''}`,
    );
    const watch = watchSessionServer(session.endpoint, opts.cwd, log);
    if (target) {
      void awaitClosed(target, {
        onDisconnect: (why) => log(`lost the connection to Temporal (${why}); retrying`),
        onReconnect: () => log('reconnected to Temporal'),
      }).then(
        () => shutdown(`${target.workflowId} closed`, false),
        (err: unknown) => shutdown(`cannot follow ${target.workflowId}: ${(err as Error).message}`, true),
      );
    }
    try {
      await running;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await watch.stop();
      stopSweeps();
      await events.close();
    }
    log('stopped');
    return EXIT.ok;
  } finally {
    await native?.close().catch(() => undefined);
    await session.close();
  }
}

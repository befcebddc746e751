/**
 * `ll-loop worker [--task-queue Q] [--until-closed <workflow-id>]`: a long-running worker process
 * for a task queue, for runs started with `run --task-queue Q` (a shared pool, default queue
 * `ll-loop`) or `run --background` (one run's own queue, until that run closes). It logs a line
 * per run it starts, picks up or finishes, and shuts down gracefully on SIGINT/SIGTERM.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { createLoopWorker, installQuietRuntime } from '../create-worker.js';
import { serverKey } from '../../host/run-env.js';
import { awaitClosed } from '../../runs/find/await-result.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { openSession } from '../../temporal/session.js';
import { hostWorkers, workerLog } from './host-workers.js';
import { refuseRetiredRuns } from './retired-runs.js';

/** How long a queue's worker lets running actions finish when it stops. */
const QUEUE_WORKER_GRACE_S = 2;

export interface WorkerOptions {
  cwd: string;
  taskQueue: string;
  /** Exit once this workflow has closed (the background worker of one run). */
  untilClosed?: string;
  out: (text: string) => void;
}

/** `--until-closed` names a workflow that does not exist. */
class WorkerTargetNotFoundError extends CliError {
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
  const log = workerLog(opts.out);
  installQuietRuntime();
  const session = await openSession(opts.cwd);
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
    await refuseRetiredRuns(session.client, [opts.taskQueue], log);
    return await hostWorkers(session, opts.cwd, log, {
      // Running actions of a queue's worker are retried by the next one; they need not outlive it.
      graceSeconds: QUEUE_WORKER_GRACE_S,
      workers: async ({ connection, events }) => [
        (
          await createLoopWorker({
            connection,
            namespace: session.endpoint.namespace,
            // Scheduled runs see their schedule's environment file (host/schedule-env.ts).
            server: serverKey(session.endpoint.address, session.endpoint.namespace),
            taskQueue: opts.taskQueue,
            events,
            shutdownGraceTime: `${QUEUE_WORKER_GRACE_S}s`,
          })
        ).worker,
      ],
      started: () =>
        log(
          `worker pid ${process.pid} polling task queue ${opts.taskQueue} on ${session.endpoint.address} (namespace ${session.endpoint.namespace})${target ? ` until ${target.workflowId} closes` : ''}`,
        ),
      ...(target
        ? {
            stopWhen: () =>
              awaitClosed(target, {
                onDisconnect: (why) => log(`lost the connection to Temporal (${why}); retrying`),
                onReconnect: () => log('reconnected to Temporal'),
              }).then(
                () => `${target.workflowId} closed`,
                (err: unknown) => `cannot follow ${target.workflowId}: ${(err as Error).message}`,
              ),
          }
        : {}),
    });
  } finally {
    await session.close();
  }
}

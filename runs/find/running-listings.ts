/**
 * The open runs as `ll-loop list --running` shows them, each asked for its status (a bounded
 * query: no worker → `worker: false`) and named with the workers that poll its actions' queue.
 * Made on a client the caller holds: the command's own, or the checkout worker's when the command
 * asks it (worker/socket/requests.ts `running`).
 */
import type { Client, Connection } from '@temporalio/client';
import { listRuns, projectScope } from './find-runs.js';
import { queryStatus } from './run-target.js';
import { queuedStartsMade } from './queued-runs.js';
import { queueWorkers, type QueueWorker } from '../workers/queue-pollers.js';

/** One open run as `list --running` shows it; `worker: false` when no worker answered. */
export interface RunningListing {
  id: string;
  loop: string;
  worker: boolean;
  state: string | null;
  phase: string | null;
  iteration: number | null;
  max_iterations: number | null;
  started_at: string;
  task_queue: string;
  cwd?: string;
  /** The ll-loop release that started the run, and its build id (memo); absent for 0.1.0 runs. */
  version?: string;
  build_id?: string;
  /** The workers polling the queue its actions go to (host, pid, version): who serves it now. */
  served_by: QueueWorker[];
  /** Runs with a scope lock: waiting for their scopes (nothing has run yet) or holding them. */
  lock?: 'waiting' | 'held';
  /** A sub-loop's or a parallel item's parent run: listed under it. */
  parent?: string;
}

/** The open loop runs of the project at `cwd` (of every project with `allProjects`). */
export async function runningListingsOn(
  { client, connection }: { client: Client; connection: Connection },
  cwd: string,
  opts: { allProjects?: boolean } = {},
): Promise<RunningListing[]> {
  // Runs `run --background` has queued are listed once started.
  if (!opts.allProjects) await queuedStartsMade(projectScope(cwd).root);
  const runs = await listRuns(client, { openOnly: true, ...(opts.allProjects ? {} : { project: projectScope(cwd) }) });
  // One DescribeTaskQueue per queue, however many runs share it.
  const workersOf = new Map<string, Promise<QueueWorker[]>>();
  const served = (queue: string): Promise<QueueWorker[]> => {
    if (!workersOf.has(queue))
      workersOf.set(
        queue,
        queueWorkers(client, queue, 'activity').catch(() => []),
      );
    return workersOf.get(queue)!;
  };
  return Promise.all(
    runs.map(async (run): Promise<RunningListing> => {
      const [status, servedBy] = await Promise.all([
        queryStatus(connection, client.workflow.getHandle(run.id)).catch(() => null),
        served(run.actionQueue ?? run.taskQueue),
      ]);
      return {
        id: run.id,
        loop: status?.loop ?? run.loop,
        worker: status !== null,
        state: status?.state ?? null,
        phase: status?.phase ?? null,
        iteration: status?.iteration ?? null,
        max_iterations: status?.max_iterations ?? null,
        started_at: run.startTime.toISOString(),
        task_queue: run.taskQueue,
        ...(run.cwd === undefined ? {} : { cwd: run.cwd }),
        ...(run.version === undefined ? {} : { version: run.version }),
        ...(run.buildId === undefined ? {} : { build_id: run.buildId }),
        served_by: servedBy,
        ...(status?.lock ? { lock: status.lock.state } : {}),
        ...(run.parent === undefined ? {} : { parent: run.parent }),
      };
    }),
  );
}

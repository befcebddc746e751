/**
 * Serving an open run of ll-loop 0.2.0 here: it runs on a task queue of its own, whose worker was
 * the command that started it, and which the runs service's `resume` hands back
 * (`{ kind: 'unserved' }`, resume-run.ts). This process hosts a worker on that queue
 * (runs/workers/run-worker.ts) for as long as the caller follows the run.
 */
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { installQuietRuntime } from '../../worker/create-worker.js';
import { hostRunWorker } from '../workers/run-worker.js';
import { withSession, type Session } from '../../temporal/session.js';

/** What the caller follows the run with: a client, and the worker to run until the run closes. */
interface ServedHere {
  client: Client;
  worker: Pick<Worker, 'runUntil'>;
}

/** Serve run `id` on its own `taskQueue` while `follow` runs; its result is returned. */
export async function serveRunHere<T>(
  cwd: string,
  id: string,
  taskQueue: string,
  follow: (served: ServedHere) => Promise<T>,
): Promise<T> {
  installQuietRuntime();
  return withSession(cwd, async (session) => {
    await forgetDeadWorker(session, id);
    const { worker, close } = await hostRunWorker(session, taskQueue);
    try {
      return await follow({ client: session.client, worker });
    } finally {
      await close();
    }
  });
}

/**
 * The dead worker's sticky queue would hold the run's next workflow task (and queries) until
 * Temporal gives up on it; resetting stickiness sends them to the run's task queue at once.
 */
async function forgetDeadWorker(session: Session, id: string): Promise<void> {
  await session.client.workflowService
    .resetStickyTaskQueue({ namespace: session.endpoint.namespace, execution: { workflowId: id } })
    .catch(() => undefined);
}

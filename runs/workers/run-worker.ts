/**
 * The worker `resume` hosts in the foreground for an open run on its own task queue whose worker
 * is gone (a run of ll-loop 0.2.0): it polls that queue while the run is followed here
 * (follow-run.ts runs it until the run closes; Ctrl-C stops the run, not the worker: interrupt.ts).
 * Unlike the long-lived kinds (host-workers.ts), it lives exactly as long as the command.
 */
import type { Worker } from '@temporalio/worker';
import { createLoopWorker } from '../../worker/create-worker.js';
import { loadedTracing } from '../../worker/tracing-config.js';
import { connectWorkerConnection } from '../../temporal/worker-connection.js';
import type { Session } from '../../temporal/session.js';

export interface RunWorker {
  worker: Worker;
  /** Once the run has been followed to its end: flush its events, close the connection. */
  close(): Promise<void>;
}

export async function hostRunWorker(session: Session, taskQueue: string): Promise<RunWorker> {
  const connection = await connectWorkerConnection(session.endpoint);
  try {
    const { worker, events } = await createLoopWorker({
      connection,
      namespace: session.endpoint.namespace,
      taskQueue,
      // This process serves the run it resumes: its actions see this command's environment.
      activityDeps: { env: process.env },
    });
    return {
      worker,
      close: async () => {
        await events.close();
        await loadedTracing()?.flushTracing();
        await connection.close().catch(() => undefined);
      },
    };
  } catch (err) {
    await connection.close().catch(() => undefined);
    throw err;
  }
}

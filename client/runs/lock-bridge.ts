/**
 * Who serves a lock workflow's task queue (the checkout's queue) until the checkout worker does:
 * the process that serves a run also polls its lock's queue while the run is open, so the lock
 * workflow of a domain has a worker whenever a run of that domain has one. Once the per-checkout
 * worker polls `checkout.queue`, these go: the lock is served there.
 */
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { statusQuery } from '../../workflows/definitions.js';
import { createLoopWorker } from '../../worker/create-worker.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import { connectWorkerConnection, type TemporalEndpoint } from '../temporal/connection.js';
import { spawnBackgroundWorker } from './background.js';
import { bounded } from './run-target.js';

export interface LockQueueWorker {
  /** The run's own worker (if any) and the lock queue's, running together until `fn` settles. */
  alongside(worker: Pick<Worker, 'runUntil'> | undefined): Pick<Worker, 'runUntil'> | undefined;
  close(): Promise<void>;
}

/**
 * A worker in this process for the lock's queue (nothing without a lock), on `connection`, or on
 * one of its own to `endpoint` (closed by `close()`).
 */
export async function serveLockQueue(lock: ScopeLockRequest | undefined, where: { endpoint: TemporalEndpoint; connection?: NativeConnection }): Promise<LockQueueWorker> {
  if (!lock) return { alongside: (worker) => worker, close: async () => undefined };
  const connection = where.connection ?? (await connectWorkerConnection(where.endpoint));
  const own = where.connection === undefined;
  const { worker: lockWorker, events } = await createLoopWorker({ connection, namespace: where.endpoint.namespace, taskQueue: lock.taskQueue }).catch(async (err: unknown) => {
    if (own) await connection.close().catch(() => undefined);
    throw err;
  });
  return {
    alongside: (worker) => ({
      runUntil: <R>(fn: Promise<R> | (() => Promise<R>)) => lockWorker.runUntil(() => (worker ? worker.runUntil(fn) : typeof fn === 'function' ? fn() : fn)),
    }),
    close: async () => {
      await events.close();
      if (own) await connection.close().catch(() => undefined);
    },
  };
}

/** `--background`: a detached `ll-loop worker` for the lock's queue too, until the run closes. */
export function spawnLockQueueWorker(cwd: string, lock: ScopeLockRequest | undefined, instanceId: string): void {
  if (lock) spawnBackgroundWorker(cwd, lock.taskQueue, instanceId);
}

/**
 * `--queue`: say once on stderr that the run waits, and behind whom (the progress display starts
 * with the run's first event, which comes only once it holds its scopes). Stops asking once the
 * run holds its scopes or has closed.
 */
export function noteWhileQueued(client: Client, workflowId: string, lock: ScopeLockRequest | undefined, err: (text: string) => void): void {
  if (!lock?.wait) return;
  const handle = client.workflow.getHandle(workflowId);
  void (async () => {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1_000).unref());
      const status = await bounded(client, 2_000, () => handle.query(statusQuery)).catch(() => undefined);
      if (!status?.lock || status.lock.state === 'held' || status.result) return;
      if (status.lock.holder) {
        err(`note: waiting for scope ${status.lock.scopes.join(', ')} behind ${status.lock.holder} (--queue); see the queue with ll-loop queue list\n`);
        return;
      }
    }
  })();
}

/**
 * The checkout worker's half of `ll-loop run`'s start through its socket
 * (worker/socket/requests.ts `start`): the scope lock and the start the command would have
 * made itself (run-connected.ts), on the worker's client, on the worker's own queue.
 */
import { scopesSettled } from '../scopes/scopes-settled.js';
import type { Client } from '@temporalio/client';
import type { Checkout } from '../../host/checkout.js';
import { lockRequestFor } from '../scopes/scope-lock.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import type { Session } from '../../temporal/session.js';
import { searchAttributesAvailable, startLoopRun } from './start-run.js';
import type { WorkerStartReply, WorkerStartRequest } from '../transport/schemas.js';

/** The scope lock the requested run takes, on this checkout; undefined with `--no-lock`. */
export function lockOf(
  r: Pick<WorkerStartRequest, 'definition' | 'lock'>,
  checkout: Checkout,
): ScopeLockRequest | undefined {
  return r.lock.none
    ? undefined
    : lockRequestFor(
        r.definition,
        { root: checkout.root, lockDomain: checkout.lockDomain, queue: checkout.queue },
        {
          wait: r.lock.wait,
          ...(r.lock.queue_timeout_s === undefined ? {} : { queueTimeoutS: r.lock.queue_timeout_s }),
        },
      );
}

/** Start the requested run; its errors are the command's (the caller sends them back). */
export async function startRequested(
  r: WorkerStartRequest,
  session: Pick<Session, 'client' | 'connection' | 'endpoint'>,
  checkout: Checkout,
  /** A client on the worker's own connection: the start asks for the first task eagerly. */
  starter?: Client,
  /** A queued start's own id (runs/start/start-queue-runner.ts) and the mark its memo carries. */
  fixed?: { workflowId: string; memo: Record<string, unknown> },
): Promise<WorkerStartReply & { kind: 'started' }> {
  const lock = lockOf(r, checkout);
  const searchAttributes = await searchAttributesAvailable(session.endpoint, session.connection);
  const { handle, instanceId, taskQueue } = await startLoopRun({
    client: session.client,
    definition: r.definition,
    file: r.file,
    cwd: r.cwd,
    taskQueue: checkout.queue,
    searchAttributes,
    started: new Date(),
    ...(fixed ? { workflowId: fixed.workflowId, memo: fixed.memo } : { idBase: r.id_base }),
    ...(starter ? { eagerOn: starter } : {}),
    env: r.env,
    ...(r.data_context.length ? { dataContext: r.data_context } : {}),
    ...(lock ? { lock } : {}),
  });
  // In the background nobody follows the run: a denial is this start's answer.
  if (r.background) await scopesSettled(session.client, instanceId, lock);
  return {
    kind: 'started',
    instance_id: instanceId,
    task_queue: taskQueue,
    run_id: handle.firstExecutionRunId,
    ...(lock ? { lock } : {}),
  };
}

/**
 * The scope locks on the server, for `ll-loop queue`: every running lock workflow's domain,
 * holders and waiters (read from its memo with a describe, so no worker is needed to list them),
 * and removing a waiter (an update the lock workflow answers, so a worker serving its queue is).
 */
import type { Client } from '@temporalio/client';
import type { ScopeQueue } from '../../fsm/run/scope-queue.js';
import {
  SCOPE_LOCK_WORKFLOW_TYPE,
  SCOPE_QUEUE_MEMO_KEY,
  scopeRemoveUpdate,
} from '../../workflows/scope-lock-definitions.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { bounded, isTimeout } from '../find/run-target.js';

/** How long `queue remove` waits for the lock workflow's worker to answer. */
const REMOVE_TIMEOUT_MS = 10_000;

export interface LockQueueReport {
  domain: string;
  lock_workflow_id: string;
  task_queue: string;
  holders: Array<{
    run: string;
    scopes: string[];
    requested_at: string;
    granted_at: string;
    waited_ms: number;
    held_ms: number;
  }>;
  waiters: Array<{ run: string; scopes: string[]; position: number; requested_at: string; waiting_ms: number }>;
}

/** Every running lock workflow, with its queue as of its last workflow task. */
export async function listLockQueues(client: Client, now = Date.now()): Promise<LockQueueReport[]> {
  const reports: LockQueueReport[] = [];
  for await (const execution of client.workflow.list({
    query: `WorkflowType = '${SCOPE_LOCK_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`,
  })) {
    const description = await client.workflow.getHandle(execution.workflowId).describe();
    const queue = (description.memo?.[SCOPE_QUEUE_MEMO_KEY] as ScopeQueue | undefined) ?? { holders: [], waiters: [] };
    const iso = (ms: number) => new Date(ms).toISOString();
    reports.push({
      domain: String(description.memo?.lock_domain ?? '?'),
      lock_workflow_id: execution.workflowId,
      task_queue: description.taskQueue,
      holders: queue.holders.map((h) => ({
        run: h.run,
        scopes: h.scopes,
        requested_at: iso(h.requestedAtMs),
        granted_at: iso(h.grantedAtMs),
        waited_ms: h.grantedAtMs - h.requestedAtMs,
        held_ms: Math.max(0, now - h.grantedAtMs),
      })),
      waiters: queue.waiters.map((w, i) => ({
        run: w.run,
        scopes: w.scopes,
        position: i + 1,
        requested_at: iso(w.requestedAtMs),
        waiting_ms: Math.max(0, now - w.requestedAtMs),
      })),
    });
  }
  return reports.sort((a, b) => a.domain.localeCompare(b.domain));
}

/** `queue remove` could not remove the run. */
class QueueRemoveError extends CliError {
  override readonly name = 'QueueRemoveError';
  constructor(message: string, fix: string) {
    super(message, fix, EXIT.usage);
  }
}

/**
 * Take `run` out of the queue it waits in; the lock tells it, and it ends as a busy run (exit 8).
 * A holder is not touched (stop it instead).
 */
export async function removeFromQueue(
  client: Client,
  run: string,
): Promise<{ domain: string; lockWorkflowId: string }> {
  const queues = await listLockQueues(client);
  const lock = queues.find((q) => q.waiters.some((w) => w.run === run) || q.holders.some((h) => h.run === run));
  if (!lock)
    throw new QueueRemoveError(
      `run ${run} is not waiting in any scope queue`,
      'see the queues with ll-loop queue list',
    );
  if (lock.holders.some((h) => h.run === run))
    throw new QueueRemoveError(
      `run ${run} holds its scopes in ${lock.domain}; it is not waiting`,
      `stop it with ll-loop stop ${run}`,
    );
  try {
    const result = await bounded(client, REMOVE_TIMEOUT_MS, () =>
      client.workflow.getHandle(lock.lock_workflow_id).executeUpdate(scopeRemoveUpdate, { args: [{ run }] }),
    );
    if (!result.removed) {
      throw result.holds
        ? new QueueRemoveError(
            `run ${run} got its scopes in ${lock.domain} just now; it is not waiting any more`,
            `stop it with ll-loop stop ${run}`,
          )
        : new QueueRemoveError(
            `run ${run} has just left the queue of ${lock.domain}`,
            'see the queues with ll-loop queue list',
          );
    }
  } catch (err) {
    if (isTimeout(err)) {
      throw new CliError(
        `the scope lock of ${lock.domain} (${lock.lock_workflow_id}) did not answer within ${REMOVE_TIMEOUT_MS / 1000}s: no worker polls its task queue ${lock.task_queue}`,
        `start one (ll-loop worker --task-queue ${lock.task_queue}), or stop the waiting run instead: ll-loop stop ${run}`,
        EXIT.runError,
      );
    }
    throw err;
  }
  return { domain: lock.domain, lockWorkflowId: lock.lock_workflow_id };
}

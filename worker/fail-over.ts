/**
 * A worker that takes a checkout over fails over the actions a dead worker left running.
 *
 * A killed worker cannot report its running actions; Temporal would notice only when the
 * action's heartbeat timeout passes (30 s), and meanwhile the run shows "action running" while
 * nothing runs. The worker that serves the checkout next knows better and sooner: an action
 * whose last attempt was started by a worker of this host whose process is gone is dead. It
 * fails that attempt (RespondActivityTaskFailedById, a retryable `WorkerDied` failure), and the
 * action's retry policy runs it again at once, here — the same retry a heartbeat timeout would
 * have caused, without the wait. Nothing in the workflow changes, so open runs of every release
 * benefit and histories replay as they ran.
 *
 * Invariants:
 * - only attempts started by an ll-loop worker identity (`<pid>@<host> ll-loop <v>`) of this very
 *   host whose pid is not alive are failed: a live worker's action, another host's, or one of a
 *   foreign worker is never touched;
 * - a failover that loses a race (the attempt completed or timed out meanwhile) is ignored:
 *   Temporal refuses a completion for an attempt that is no longer running.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { pidAlive } from '../host/checkout-claim.js';
import { parseWorkerIdentity } from '../host/checkout.js';

/** PendingActivityState.STARTED in Temporal's API. */
const STARTED = 2;

export interface FailedOver {
  workflowId: string;
  activityId: string;
  /** The dead worker's identity. */
  worker: string;
}

/** Whether `identity` is an ll-loop worker of `host` that is no longer alive. */
function isDeadWorker(identity: string | null | undefined, host: string): boolean {
  const parsed = parseWorkerIdentity(identity ?? '');
  return parsed !== undefined && parsed.host === host && parsed.pid !== process.pid && !pidAlive(parsed.pid);
}

/**
 * Send the next workflow tasks (and queries) of the open runs on `taskQueue` to that queue, not to
 * the sticky queue of the worker that ran them last (ResetStickyTaskQueue). A worker keeps each
 * run it served in its cache and asks Temporal to hand it the run's next tasks on a queue of its
 * own; once that worker is dead, a task or query sent there waits out its schedule-to-start
 * timeout (10 s) before Temporal gives it to the run's queue — `ll-loop answer` right after a
 * worker kill waited that long for the run's status. A worker taking the checkout over starts with
 * an empty cache and is the only one polling the checkout's queue, so every such sticky queue is a
 * previous worker's: none of them can serve the run faster than the queue itself. Returns the runs
 * reset; a run that closed meanwhile is skipped.
 */
export async function forgetStickyQueues(client: Client, taskQueue: string): Promise<string[]> {
  const reset: string[] = [];
  const query = `TaskQueue = '${taskQueue.replaceAll("'", "\\'")}' AND ExecutionStatus = 'Running'`;
  for await (const run of client.workflow.list({ query })) {
    try {
      await client.workflowService.resetStickyTaskQueue({
        namespace: client.options.namespace,
        execution: { workflowId: run.workflowId, runId: run.runId },
      });
      reset.push(run.workflowId);
    } catch {
      // Closed in between: it has no next task.
    }
  }
  return reset;
}

/** Fail over the running actions of dead workers of `host` in the open runs on `taskQueue`. */
export async function failOverDeadWorkers(client: Client, taskQueue: string, host: string): Promise<FailedOver[]> {
  const done: FailedOver[] = [];
  const query = `TaskQueue = '${taskQueue.replaceAll("'", "\\'")}' AND ExecutionStatus = 'Running'`;
  for await (const run of client.workflow.list({ query })) {
    let pending;
    try {
      pending = (await client.workflow.getHandle(run.workflowId, run.runId).describe()).raw.pendingActivities ?? [];
    } catch {
      continue; // Closed in between.
    }
    for (const activity of pending) {
      if (
        Number(activity.state) !== STARTED ||
        !activity.activityId ||
        !isDeadWorker(activity.lastWorkerIdentity, host)
      )
        continue;
      const failure = ApplicationFailure.retryable(
        `the worker running this action (${activity.lastWorkerIdentity}) died; the action is run again by the worker that took the checkout over`,
        'WorkerDied',
      );
      try {
        await client.activity.fail(
          { workflowId: run.workflowId, runId: run.runId, activityId: activity.activityId },
          failure,
        );
        done.push({
          workflowId: run.workflowId,
          activityId: activity.activityId,
          worker: activity.lastWorkerIdentity ?? '?',
        });
      } catch {
        // The attempt is over already (completed, timed out): nothing to fail over.
      }
    }
  }
  return done;
}

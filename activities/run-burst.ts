/**
 * The `runBurst` activity: a chain of quick shell actions run back to back in one local activity.
 *
 * The pure core decides here what it would decide in the workflow: after each action its
 * `action_done` fact goes to `transition()`, and the next effect says which action runs next
 * (fsm/run/burst.ts says where a burst must stop). Only the facts are returned — the actions'
 * results, output masked as any action's (`mask_env`) — and the workflow feeds them to the same core
 * in the same order, recording the events a run of one action per activity records.
 *
 * The loop deadline is enforced here, since the workflow's timer cannot fire while a local activity
 * holds its task: no action starts at or past it, and a running action's process group is killed
 * at it (the action's result is then dropped, as the workflow drops an action stopped by the
 * loop's timeout). `${env.*}` values are read on this worker only, as for `runAction`.
 *
 * A stop of the run is seen here too (`watch_stop`, activities/stop-watch.ts), since the run itself
 * hears of it only when the burst's workflow task ends: the running action is killed, its result
 * dropped, and the burst returns what ran before it with `stopped_at`.
 */
import { transition } from '../fsm/run/transition.js';
import { endsBurst, nextBurstAction, type BurstFact, type BurstOutcome } from '../fsm/run/burst.js';
import type { ActionRequest, RunningSnapshot } from '../fsm/run/snapshot.js';
import type { RunActionInput } from '../fsm/types.js';
import type { RunBurstInput } from '../workflows/activity-types.js';
import { currentContext, runActionOnce, type ActivityDeps } from './run-action.js';
import { quickLaunch, type Launch } from './action-spawner.js';
import { watchForStop } from './stop-watch.js';
import { stopWasRequested } from '../host/stop-requests.js';

/** Builds `runBurst`. Infrastructure faults of its first action throw (Temporal retries the burst, as it retries `runAction`). */
export function makeRunBurst(
  deps: ActivityDeps = {},
  launch: Launch = quickLaunch(),
): (input: RunBurstInput) => Promise<BurstOutcome> {
  // Each action's process is started by the action spawner when the worker has one (action-spawner.ts).
  const runOnce = runActionOnce(deps, launch);
  return async function runBurst(input: RunBurstInput): Promise<BurstOutcome> {
    const facts: BurstFact[] = [];
    let snapshot: RunningSnapshot = input.snapshot;
    let request: ActionRequest | undefined = input.first;
    let ms = 0;
    while (request !== undefined) {
      const reached = deadlineReached(input);
      if (reached !== undefined) return { facts, deadline_at: reached };
      if (input.watch_stop && stopWasRequested(runOf(input))) return { facts, stopped_at: now(input) };
      const action: RunActionInput = { ...request, ...input.action };
      const done = await runBefore(runOnce, action, input, facts.length === 0, deps);
      if (done === 'fault') break;
      if ('deadline_at' in done) return { facts, deadline_at: done.deadline_at };
      if ('stopped_at' in done) return { facts, stopped_at: done.stopped_at };
      facts.push(done);
      ms += done.result.duration_ms;
      if (endsBurst(done.result)) break;
      const next = transition(input.definition, snapshot, done);
      request = nextBurstAction(input.definition, next, { actions: facts.length, ms }, input.bounds);
      if (next.snapshot.status === 'running') snapshot = next.snapshot;
    }
    return { facts };
  };
}

/** The workflow id of the run the burst is for (a sub-loop's own, not its parent's instance id). */
const runOf = (input: RunBurstInput): string =>
  currentContext()?.info.workflowExecution?.workflowId ?? input.action.instanceId;

/** The worker's clock, never before the workflow's when it asked. */
const now = (input: RunBurstInput): number => Math.max(Date.now(), input.now);

/** The deadline's instant when it has passed (never before the workflow's own clock). */
function deadlineReached(input: RunBurstInput): number | undefined {
  if (input.deadline_ms === undefined) return undefined;
  const at = now(input);
  return at >= input.deadline_ms ? at : undefined;
}

/**
 * One action, killed at the loop deadline. A fault of the burst's first action is the activity's
 * (thrown: retried, then the workflow's `action_failed`); a fault of a later one ends the burst
 * before it ('fault'), so that action runs again as the first of the next step, under the same retry
 * policy as any action.
 */
async function runBefore(
  runOnce: ReturnType<typeof runActionOnce>,
  action: RunActionInput,
  input: RunBurstInput,
  first: boolean,
  deps: ActivityDeps,
): Promise<BurstFact | { deadline_at: number } | { stopped_at: number } | 'fault'> {
  const stop = new AbortController();
  /** When the run's stop was seen: the action is killed, the burst ends with what ran before it. */
  let stoppedAt: number | undefined;
  const watch = input.watch_stop
    ? watchForStop(runOf(input), deps.client, () => {
        stoppedAt = now(input);
        stop.abort();
      })
    : undefined;
  /** When the action was killed at the deadline: the run's end is timed then, not when the process was reaped. */
  let killedAt: number | undefined;
  const left = input.deadline_ms === undefined ? undefined : input.deadline_ms - Date.now();
  const timer =
    left === undefined
      ? undefined
      : setTimeout(
          () => {
            // A timer may fire a millisecond before the wall clock reaches its instant: the deadline
            // has passed when it fires, so the run never ends before it.
            killedAt = Math.max(Date.now(), input.now, input.deadline_ms ?? 0);
            stop.abort();
          },
          Math.max(0, left),
        );
  try {
    const result = await runOnce(action, stop.signal);
    if (killedAt !== undefined) return { deadline_at: killedAt };
    if (stoppedAt !== undefined) return { stopped_at: stoppedAt };
    return { type: 'action_done', result, now: now(input) };
  } catch (err) {
    // An action killed for the run's stop ends the burst as the stop does, whatever it threw; so
    // does the burst's own cancellation (the stop came with the task's heartbeat first): the
    // actions that ran before it are the run's, to record.
    if (stoppedAt !== undefined) return { stopped_at: stoppedAt };
    if (input.watch_stop && currentContext()?.cancellationSignal.aborted) return { stopped_at: now(input) };
    // A stop of the run (the activity's cancellation) is never a fault to step around.
    if (first || currentContext()?.cancellationSignal.aborted) throw err;
    return 'fault';
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    watch?.dispose();
  }
}

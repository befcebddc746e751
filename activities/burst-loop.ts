/**
 * A burst's loop: its quick shell actions back to back, the pure core deciding between them what it
 * would decide in the workflow. After each action its `action_done` fact goes to `transition()`,
 * and the next effect says which action runs next (fsm/run/burst.ts says where a burst must stop).
 * Each fact is handed on as it comes (`onFact`); the workflow feeds them to the same core in the
 * same order and records the events a run of one action per activity records.
 *
 * It runs where the burst's actions start: in the worker's action spawner when there is one
 * (activities/action-spawner.ts; the worker's main thread, busy with Temporal, is then off every
 * action's path), else in the worker. So it knows nothing of Temporal: what stops it from outside
 * (the run's stop, the activity's cancellation) comes through a {@link BurstControl}, and how it
 * ended is a {@link BurstEnd} the activity turns into its outcome or its failure (run-burst.ts).
 *
 * The loop deadline is enforced here, since the workflow's timer cannot fire while a local
 * activity holds its task: no action starts at or past it, and a running action's process group
 * is killed at it (the action's result is then dropped, as the workflow drops an action stopped by
 * the loop's timeout).
 */
import { transition } from '../fsm/run/transition.js';
import { endsBurst, nextBurstAction, type BurstFact } from '../fsm/run/burst.js';
import type { ActionRequest, RunningSnapshot } from '../fsm/run/snapshot.js';
import type { ActionResult, RunActionInput } from '../fsm/types.js';
import type { RunBurstInput } from '../workflows/activity-types.js';
import type { JournaledAction } from './action-journal.js';

/** Why a burst is stopped from outside: the run's stop (`watch_stop`), or the activity's cancellation. */
export type BurstStopReason = 'stop' | 'cancel';

/**
 * How a burst ended, its facts aside:
 * - `done`: the core, a bound, a stdout signal, a rate limit or a drain ended it, or a later
 *   action's fault did (that action runs again as the first of the next step, under the retry
 *   policy of any);
 * - `deadline`, `stopped`: at the loop deadline, or at the run's stop (the running action killed,
 *   its result dropped);
 * - `cancelled`: the activity was cancelled and the run does not watch for stops: the activity
 *   reports its cancellation;
 * - `fault`: the burst's first action could not be run: the activity fails with it (and is retried).
 */
export type BurstEnd<Fault = unknown> =
  | { ended: 'done' }
  | { ended: 'deadline'; at: number }
  | { ended: 'stopped'; at: number }
  | { ended: 'cancelled' }
  | { ended: 'fault'; error: Fault };

/**
 * What stops a running burst from outside: once aborted, the running action is killed; once
 * drained, no action starts after the running one (a person's pause or steer reached the run:
 * activities/burst-after.ts).
 */
export class BurstControl {
  private readonly controller = new AbortController();
  private readonly drainer = new AbortController();
  private why: { reason: BurstStopReason; at: number } | undefined;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborted once the burst is drained. */
  get drained(): AbortSignal {
    return this.drainer.signal;
  }

  drain(): void {
    this.drainer.abort();
  }

  /** The first reason given, and when (epoch ms); undefined while the burst may go on. */
  get stopped(): { reason: BurstStopReason; at: number } | undefined {
    return this.why;
  }

  abort(reason: BurstStopReason, at: number): void {
    if (this.why !== undefined) return;
    this.why = { reason, at };
    this.controller.abort();
  }
}

/** Runs one action of the burst to its result; `stop` kills its process group. */
export type RunBurstAction = (action: RunActionInput, stop: AbortSignal) => Promise<ActionResult>;

/**
 * Runs the burst to its end; its facts go to `onFact` in order, as each action ends, with the
 * state whose action it is (the journal's entry names it). `journaled`: the burst's first actions
 * as they completed in an earlier attempt whose outcome was lost (activities/action-journal.ts):
 * each is delivered again (`redelivered`), not run, while it is the action the burst comes to —
 * already done, it is the run's whatever the deadline or a stop.
 */
export async function runBurstLoop(
  input: RunBurstInput,
  runAction: RunBurstAction,
  control: BurstControl,
  onFact: (fact: BurstFact, state: string) => void,
  journaled: readonly JournaledAction[] = [],
): Promise<BurstEnd> {
  let snapshot: RunningSnapshot = input.snapshot;
  let request: ActionRequest | undefined = input.first;
  let actions = 0;
  let ms = 0;
  let replaying = true;
  while (request !== undefined) {
    const again: JournaledAction | undefined = replaying ? journaled[actions] : undefined;
    // The same state's action at the same place: the same call (a journal that no longer fits is left).
    replaying = again !== undefined && again.state === request.state;
    let done: BurstFact | BurstEnd | 'fault';
    if (replaying) done = { type: 'action_done', result: { ...again!.result, redelivered: true }, now: now(input) };
    else {
      // Drained: the actions that ran are the burst's; the run decides what comes next.
      if (actions > 0 && control.drained.aborted) break;
      const reached = deadlineReached(input);
      if (reached !== undefined) return { ended: 'deadline', at: reached };
      const stopped = stoppedEnd(input, control);
      if (stopped !== undefined) return stopped;
      done = await runOne(runAction, { ...request, ...input.action }, input, control, actions === 0);
    }
    if (done === 'fault') break;
    if ('ended' in done) return done;
    onFact(done, request.state);
    actions += 1;
    ms += done.result.duration_ms;
    if (endsBurst(done.result)) break;
    const next = transition(input.definition, snapshot, done);
    request = nextBurstAction(input.definition, next, { actions, ms }, input.bounds);
    if (next.snapshot.status === 'running') snapshot = next.snapshot;
  }
  return { ended: 'done' };
}

/** The worker's clock, never before the workflow's when it asked. */
function now(input: RunBurstInput): number {
  return Math.max(Date.now(), input.now);
}

/** The deadline's instant when it has passed (never before the workflow's own clock). */
function deadlineReached(input: RunBurstInput): number | undefined {
  if (input.deadline_ms === undefined) return undefined;
  const at = now(input);
  return at >= input.deadline_ms ? at : undefined;
}

/** How a burst stopped from outside ends: undefined while nothing stopped it. */
function stoppedEnd(input: RunBurstInput, control: BurstControl): BurstEnd | undefined {
  const why = control.stopped;
  if (why === undefined) return undefined;
  if (why.reason === 'stop') return { ended: 'stopped', at: why.at };
  // A cancellation is the run's stop too when the run watches for stops: what ran before it is
  // the run's, to record (the stop came with the task's heartbeat first).
  return input.watch_stop ? { ended: 'stopped', at: now(input) } : { ended: 'cancelled' };
}

/**
 * One action, killed at the loop deadline or when the burst is stopped. A fault of the burst's
 * first action ends the burst with it; a fault of a later one ends the burst before it ('fault').
 */
async function runOne(
  runAction: RunBurstAction,
  action: RunActionInput,
  input: RunBurstInput,
  control: BurstControl,
  first: boolean,
): Promise<BurstFact | BurstEnd | 'fault'> {
  const stop = new AbortController();
  const onStop = (): void => stop.abort();
  control.signal.addEventListener('abort', onStop, { once: true });
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
    const result = await runAction(action, stop.signal);
    if (killedAt !== undefined) return { ended: 'deadline', at: killedAt };
    // A stop drops the action it interrupted, whatever it returned; a cancellation drops it only
    // when it killed it (an action that ended first is the run's).
    const why = control.stopped;
    if (why?.reason === 'stop' || (why !== undefined && result.error === 'cancelled'))
      return stoppedEnd(input, control)!;
    return { type: 'action_done', result, now: now(input) };
  } catch (error) {
    // Whatever an action stopped from outside threw, the stop is what ends the burst.
    const stopped = stoppedEnd(input, control);
    if (stopped !== undefined) return stopped;
    return first ? { ended: 'fault', error } : 'fault';
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    control.signal.removeEventListener('abort', onStop);
  }
}

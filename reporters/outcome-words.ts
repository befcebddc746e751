/**
 * The one set of words a run's outcome is said in: the `LoopStatus` search attribute's, which
 * `ll-loop status`, `list` and `history` print, and which `ll-loop ui` shows in its runs list, on a
 * run's page and in its messages. While a run is open: `running`, `rate_limited`, `paused`, or
 * `waiting` (for a person); once its loop ended, how (fsm/run/outcome.ts): `succeeded`, `failed`
 * (a `failure: true` terminal), `limit`, `budget`, `timed_out`, `error`, `stopped`, `handoff`.
 *
 * Temporal's own status words (completed, canceled, terminated, failed) are not outcomes: a closed
 * run whose loop recorded no end (terminated, or failed before its loop could end) is given the
 * outcome its workflow status means. Shared by the CLI, the ui server and the page (no Node code).
 */
import { outcomeOf, type LoopOutcome } from '../fsm/run/outcome.js';
import type { ExecutionResult } from '../fsm/types.js';

export type RunOutcome = LoopOutcome | 'rate_limited' | 'paused' | 'waiting';

/** How a loop ended, from its result or its `loop_complete` event. */
export function loopOutcome(end: Pick<ExecutionResult, 'terminated_by'> & { failure?: boolean }): RunOutcome {
  return outcomeOf({ terminated_by: end.terminated_by, failure: end.failure === true });
}

/**
 * The outcome of a run known only by its workflow's status (Temporal's name, any case: `RUNNING`,
 * `completed`, `canceled`, …): terminated and canceled runs were stopped; any other failure
 * is `failed`, the word `list --failed` finds them by.
 */
export function outcomeOfStatus(status: string): RunOutcome {
  switch (status.toLowerCase()) {
    case 'running':
      return 'running';
    case 'completed':
      return 'succeeded';
    case 'canceled':
    case 'cancelled':
    case 'terminated':
      return 'stopped';
    case 'timed_out':
      return 'timed_out';
    default:
      return 'failed';
  }
}

/**
 * A listed run's outcome: its `LoopStatus` while that is current, else its workflow's status.
 * (`done` was written by 0.3.0 and older whatever the outcome; a run terminated while it ran keeps
 * `running`, which its closed workflow contradicts.)
 */
export function listedOutcome(run: { status: string; open: boolean; loopStatus?: string }): RunOutcome {
  const attr = run.loopStatus;
  if (attr && attr !== 'done' && !(attr === 'running' && !run.open)) return attr as RunOutcome;
  return outcomeOfStatus(run.status);
}

/** The outcomes of a run that ended and did not succeed in a way a person must look at (red). */
export const BAD_OUTCOMES: readonly string[] = ['failed', 'limit', 'budget', 'timed_out', 'error'];

/** An outcome as a page shows it: the word itself, but for the two the docs spell for people. */
export function outcomeLabel(outcome: string): string {
  if (outcome === 'waiting') return 'waiting for a person';
  if (outcome === 'rate_limited') return 'rate-limited';
  return outcome;
}

/** A fan-out item's outcome (its `item_done`: the verdict its loop routed as) in the same words. */
export function itemOutcome(outcome: string): string {
  switch (outcome) {
    case 'yes':
      return 'succeeded';
    case 'no':
      return 'failed';
    case 'cancelled':
      return 'stopped';
    default:
      return outcome;
  }
}

/** The outcome a run denied its scopes shows (it never began: no state, no loop outcome). */
export const SCOPE_BUSY_OUTCOME = 'scope busy';

/**
 * How a run's end looks from outside: its outcome (the `LoopStatus` search attribute, `list
 * --failed`), and how it closes its workflow.
 *
 * A run closes the way it ended, so the Temporal Web UI's list and its Failures counter tell the
 * truth: Completed only at a success terminal, Failed (a non-retryable `LoopFailed` carrying the
 * result and the final snapshot) at a failure terminal, a limit, a timeout or an error, Canceled
 * when stopped (the `closeAsOutcome` rule, set by every release served: workflows/run-rules.ts).
 */
import type { ExecutionResult } from '../types.js';

/** Every value of the `LoopStatus` search attribute (runs of 0.3.0 and older wrote `running`/`done`). */
export const LOOP_OUTCOMES = [
  'running',
  'succeeded',
  'failed',
  'limit',
  'timed_out',
  'error',
  'stopped',
  'budget',
  'handoff',
] as const;
export type LoopOutcome = (typeof LOOP_OUTCOMES)[number];

/** The outcomes the Web UI shows as Failed (`list --failed`). */
export const FAILED_OUTCOMES: readonly LoopOutcome[] = ['failed', 'limit', 'timed_out', 'error', 'budget'];

/** True when the run ended in a terminal state not marked `failure: true`. */
function succeeded(result: ExecutionResult): boolean {
  return result.terminated_by === 'terminal' && !result.failure;
}

/** The outcome of a finished run. */
export function outcomeOf(result: Pick<ExecutionResult, 'terminated_by' | 'failure'>): Exclude<LoopOutcome, 'running'> {
  switch (result.terminated_by) {
    case 'terminal':
      return result.failure ? 'failed' : 'succeeded';
    case 'max_iterations':
    case 'max_steps':
      return 'limit';
    case 'timeout':
      return 'timed_out';
    case 'error':
      return 'error';
    case 'cancelled':
      return 'stopped';
    case 'budget':
      return 'budget';
    case 'handoff':
      return 'handoff';
  }
}

export type Closing = { kind: 'complete' } | { kind: 'fail'; message: string } | { kind: 'cancel' };

/** How the workflow of a finished run closes. */
export interface CloseRules {
  /**
   * A sub-loop completes with its result when stopped: its parent needs what it captured when
   * the state's own timeout stopped it (a parent stopped from outside ends Canceled itself).
   */
  child?: boolean;
}

export function closing(result: ExecutionResult, rules: CloseRules = {}): Closing {
  if (succeeded(result)) return { kind: 'complete' };
  // Ended by the loop's own stdout signal (`LOOP_STOP:`, a `CONTEXT_HANDOFF:` under `on_handoff:
  // terminate`): nobody cancelled the workflow, and the run did not fail; `resume` continues it.
  if (result.stopped_by === 'loop_stop' || result.terminated_by === 'handoff') return { kind: 'complete' };
  if (result.terminated_by === 'cancelled') return rules.child ? { kind: 'complete' } : { kind: 'cancel' };
  return { kind: 'fail', message: `loop ${result.loop}: ${whyItFailed(result)}` };
}

/**
 * Whether an error message is the one {@link closing} gives a failed run (`loop <name>: …`): the
 * worker knows an outcome from a fault by it where the failure's type was lost in transit.
 */
export function isLoopFailedMessage(message: string): boolean {
  return /^loop .+?: /.test(message);
}

/** One line saying how a run that did not succeed ended. */
function whyItFailed(result: ExecutionResult): string {
  if (result.error) return result.error;
  if (result.terminated_by === 'terminal') return `ended in failure state "${result.final_state}"`;
  if (result.terminated_by === 'max_iterations')
    return `max_iterations reached in state "${result.final_state}" after ${result.iterations} passes`;
  if (result.terminated_by === 'max_steps') return `max_steps reached in state "${result.final_state}"`;
  if (result.terminated_by === 'timeout') return `timed out in state "${result.final_state}"`;
  return `${result.terminated_by} in state "${result.final_state}"`;
}

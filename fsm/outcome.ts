/**
 * How a finished run closes its workflow: completed with its result, or — when the caller asked
 * for failures to be visible to Temporal (`failOnNonTerminal`, set by schedules with
 * `--pause-on-failure`) — failed, for a run that ended by a limit, a timeout, an error or in a
 * `failure: true` terminal. A stopped run is never a failure.
 */
import type { ExecutionResult } from './types.js';

export type Closing = { kind: 'complete' } | { kind: 'fail'; message: string };

/** True when the run ended in a terminal state not marked `failure: true`. */
export function succeeded(result: ExecutionResult): boolean {
  return result.terminated_by === 'terminal' && !result.failure;
}

export function closing(result: ExecutionResult, failOnNonTerminal: boolean): Closing {
  if (!failOnNonTerminal || result.terminated_by === 'cancelled' || succeeded(result)) return { kind: 'complete' };
  const why = result.error ?? (result.failure ? `ended in failure state "${result.final_state}"` : `${result.terminated_by} reached in state "${result.final_state}"`);
  return { kind: 'fail', message: `loop ${result.loop}: ${why}` };
}

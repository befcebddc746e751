/** Exit codes of `ll-loop` (documented in docs/cli.md). */
import type { ExecutionResult } from '../fsm/types.js';

export const EXIT = {
  /** The loop reached a terminal state (not marked `failure: true`); or a command succeeded. */
  ok: 0,
  /** Invalid loop file, unknown loop, bad arguments. */
  usage: 1,
  /** The loop reached a terminal state marked `failure: true` (e.g. escalate, failed). */
  failureTerminal: 2,
  /** `max_iterations` or `max_steps` reached, or a budget spent (`terminated_by: budget`). */
  limit: 3,
  /** The loop-level `timeout` fired. */
  timeout: 4,
  /** The run ended with an error (no route for a verdict, undefined variable, …). */
  runError: 5,
  /** The run was stopped (Ctrl-C, `ll-loop stop`, a `LOOP_STOP:` line) or handed off (`on_handoff: terminate`): `resume` continues it. */
  cancelled: 6,
  /** Temporal could not be reached or the embedded server could not start. */
  infrastructure: 7,
  /** Scope busy: another run holds (or waits ahead for) an overlapping scope (run it with --queue to wait). */
  scopeBusy: 8,
} as const;

export function exitCodeFor(result: Pick<ExecutionResult, 'terminated_by' | 'failure'>): number {
  switch (result.terminated_by) {
    case 'terminal':
      return result.failure ? EXIT.failureTerminal : EXIT.ok;
    case 'max_iterations':
    case 'max_steps':
    case 'budget':
      return EXIT.limit;
    case 'timeout':
      return EXIT.timeout;
    case 'cancelled':
    case 'handoff':
      return EXIT.cancelled;
    default:
      return EXIT.runError;
  }
}

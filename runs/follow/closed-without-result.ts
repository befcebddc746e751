/**
 * The words for a closed run that has no loop result, shared by `ll-loop status` and the web
 * view's end of a run (ui/server/run-end.ts).
 */
import { SCOPE_BUSY } from '../../workflows/scope-busy.js';
import type { ScopeBusyDetails } from '../../workflows/scope-lock-definitions.js';
import { ScopeBusyError } from '../scopes/scope-busy-error.js';

/**
 * How a closed run without a loop result ended, as `status` says it (and the web view, whole):
 * refused its scopes (what was in the way, and the fix), else Temporal's status and reason.
 */
export function closedWithoutResult(
  id: string,
  status: string,
  failure: { type: string; message: string; details?: unknown } | undefined,
): string {
  if (failure?.type === SCOPE_BUSY) {
    const busy = ScopeBusyError.fromFailure(id, failure.message, failure.details as ScopeBusyDetails | undefined);
    return `${busy.message}: nothing of the loop ran\nfix: ${busy.fix ?? ''}`;
  }
  if (failure) return `it ended without a loop result (${status} in Temporal: ${failure.message})`;
  return `it ended without a loop result (${status} in Temporal)`;
}

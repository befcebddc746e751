/**
 * The error of a run that did not get its scopes (exit 8). Apart from scope-lock.ts, which needs
 * the Temporal client, so that a follower that never loads the SDK can raise it.
 */
import type { ScopeBusyDetails } from '../../workflows/scope-lock-definitions.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';

/** A run did not get its scopes (exit 8): busy, removed from the queue, or out of patience. */
export class ScopeBusyError extends CliError {
  override readonly name = 'ScopeBusyError';
  constructor(
    message: string,
    readonly details: Pick<ScopeBusyDetails, 'scopes' | 'blockers'> & Partial<ScopeBusyDetails>,
  ) {
    const holder = details.blockers[0]?.run;
    const fix =
      details.reason === 'removed'
        ? 'start it again when you want it to run (with --queue to wait for its turn)'
        : `wait for your turn instead: run it again with --queue (or --queue-timeout 10m)${holder ? `; see who holds what with ll-loop queue list, or stop ${holder} with ll-loop stop ${holder}` : ''}`;
    super(message, fix, EXIT.scopeBusy);
  }

  /** From the failure a run ended with (its message and details). */
  static fromFailure(runId: string, message: string, details: ScopeBusyDetails | undefined): ScopeBusyError {
    return new ScopeBusyError(`run ${runId} did not start: ${message}`, details ?? { scopes: [], blockers: [] });
  }
}

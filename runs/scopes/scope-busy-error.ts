/**
 * The error of a run that did not get its scopes (exit 8). Apart from scope-lock.ts, which needs
 * the Temporal client, so that a follower that never loads the SDK can raise it.
 */
import type { ScopeBusyDetails } from '../../workflows/scope-lock-definitions.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';

/**
 * After `--queue-timeout` gave up: who was in the way and what to do about it. Running it again
 * with the same timeout would only wait as long again, so it says to wait for (or stop) that run,
 * or to allow longer than it waited.
 */
function timeoutFix(blocker: ScopeBusyDetails['blockers'][number] | undefined, waitedS: number | undefined): string {
  const longer = `or run it again with a --queue-timeout longer than the ${waitedS ?? 0} s it waited (--queue alone waits as long as it takes)`;
  if (!blocker) return `see who holds what with ll-loop queue list; ${longer}`;
  const who = `${blocker.run} ${blocker.holds ? 'holds' : 'is queued ahead for'} scope ${blocker.scopes.join(', ')}`;
  return `${who}: run this again once it has ended (ll-loop status ${blocker.run} --follow), stop it with ll-loop stop ${blocker.run}, ${longer}`;
}

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
        : details.reason === 'timeout'
          ? timeoutFix(details.blockers[0], details.waited_s)
          : `wait for your turn instead: run it again with --queue (or --queue-timeout 10m)${holder ? `; see who holds what with ll-loop queue list, or stop ${holder} with ll-loop stop ${holder}` : ''}`;
    super(message, fix, EXIT.scopeBusy);
  }

  /** From the failure a run ended with (its message and details). */
  static fromFailure(runId: string, message: string, details: ScopeBusyDetails | undefined): ScopeBusyError {
    return new ScopeBusyError(`run ${runId} did not start: ${message}`, details ?? { scopes: [], blockers: [] });
  }
}

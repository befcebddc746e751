/**
 * Author retries (`retry:` on a state): when an attempt of a state's action counts as failed, and
 * when the next attempt starts. Pure decisions; `step()` carries them out (an `action_retry` event,
 * a durable `sleep`, the action again — no new pass, no new step).
 *
 * Which attempts fail (docs/loop-format.md#retry):
 * - without `on:` — the action exited non-zero (a timeout is 124, a signal 128+N) or could not run
 *   at all (an unset `${env.X}`, a missing host CLI, an activity that failed after Temporal's own
 *   infrastructure retry). Verdicts play no part: the failed attempt is not evaluated.
 * - with `on: [verdicts]` — the attempt is evaluated as usual and fails when its verdict is listed;
 *   an action that could not run counts as the verdict `error`. Exit codes play no part.
 *
 * These are separate from Temporal's retries of infrastructure faults (worker death, an error in
 * the activity itself), which happen inside one attempt: see docs/decisions.md.
 */
import type { RetryConfig, StateConfig } from '../schema.js';

/** What one attempt produced, as far as retrying is concerned. */
export type AttemptOutcome =
  { kind: 'exit'; exitCode: number } | { kind: 'verdict'; verdict: string } | { kind: 'could_not_run' };

/** Does `outcome` make this attempt a failure that `state.retry` wants to retry? */
export function attemptFailed(state: StateConfig, outcome: AttemptOutcome): boolean {
  const retry = state.retry;
  if (!retry || retry.attempts <= 1) return false;
  if (retry.on === undefined) {
    if (outcome.kind === 'could_not_run') return true;
    return outcome.kind === 'exit' && outcome.exitCode !== 0;
  }
  if (outcome.kind === 'could_not_run') return retry.on.includes('error');
  return outcome.kind === 'verdict' && retry.on.includes(outcome.verdict);
}

/**
 * Milliseconds to wait after attempt `failed` (1-based) before the next one:
 * `backoff × backoff_coefficient^(failed − 1)`, capped at `max_backoff`.
 */
export function retryDelayMs(retry: RetryConfig, failed: number): number {
  const seconds = retry.backoff * retry.backoff_coefficient ** (failed - 1);
  const capped = retry.max_backoff === undefined ? seconds : Math.min(seconds, retry.max_backoff);
  return Math.round(capped * 1000);
}

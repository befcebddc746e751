/** Reopening an event stream the browser gave up on. Pure: unit-tested. */

/** The waits between attempts to reopen a stream the browser gave up on: 0.5 s doubling to 8 s. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 8000;

/** The wait before the `attempt`-th reopening (1-based). */
export function retryDelay(attempt: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, attempt - 1));
}

/**
 * What `status` says of a run in words, apart from the code that asks Temporal (run-target.ts), so
 * that printing a status the checkout's worker answered loads no Temporal SDK.
 */

/** How long a status query may wait for a worker before the run counts as having none. */
export const QUERY_TIMEOUT_MS = 2_000;

/** Phase names for people. */
export function describePhase(phase: string): string {
  const names: Record<string, string> = {
    starting: 'starting',
    action: 'action running',
    llm: 'LLM evaluation',
    git_diff: 'diff_stall git snapshot',
    backoff: 'backoff',
    retry_delay: 'waiting to retry',
    maintain_delay: 'maintain delay',
    rate_limited: 'rate limited, paused',
    handoff: 'paused on a handoff',
    paused: 'paused by a person',
    human: 'waiting for a person',
    parallel: 'items running',
    done: 'done',
  };
  return names[phase] ?? phase;
}

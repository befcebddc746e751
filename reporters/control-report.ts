/**
 * What a person is told when a run took their pause, unpause or steer (the run's answer to the
 * update): `ll-loop pause`/`unpause`/`steer` print it, and `ll-loop ui`'s page shows its first line.
 */
import type { ControlAnswer } from '../workflows/control-definitions.js';

/** The update the run took (runs/control/run-control.ts ControlRequest, as far as the words need it). */
type ControlAsked = { kind: 'pause' } | { kind: 'unpause' } | { kind: 'steer'; to: string };

/** What a person is told when the run took their request (`a`: the run's answer to it). */
export function controlReport(id: string, req: ControlAsked, a: ControlAnswer, by: string): string {
  switch (req.kind) {
    case 'pause':
      return `paused ${id} (by ${by}): ${pauseWhen(id, a)}\n  unpause: ll-loop unpause ${id}`;
    case 'unpause':
      return `unpaused ${id} (by ${by}): it goes on from state ${a.state}`;
    case 'steer':
      if (a.after_quick) return `steered ${id} (by ${by}): ${QUICK_NOW(a)}; then the run goes to ${req.to}`;
      // A run waiting for an answer is let go at once (docs/decisions.md), its question unanswered.
      if (a.phase === 'human')
        return `steered ${id} to ${req.to} (by ${by}): the question of state ${a.state} is dropped unanswered`;
      return a.phase === 'paused' || a.holding
        ? `steered ${id} to ${req.to} (by ${by})`
        : `steered ${id} (by ${by}): once state ${a.state} ends, the run goes to ${req.to}`;
  }
}

/** The work a pause lets finish first, by the phase the run is in. */
const WORK: Record<string, string> = {
  action: 'its action',
  llm: 'its evaluation',
  git_diff: 'its evaluation',
  rate_limited: 'its wait for the rate limit and its evaluation',
  subloop: 'its sub-loop',
  parallel: 'its parallel items',
  backoff: 'its wait and its retry',
  retry_delay: 'its wait and its retry',
  maintain_delay: 'its wait and its next pass',
};

/** Quick actions running back to back when the update came (workflows/burst.ts): they end first. */
const QUICK_NOW = (a: ControlAnswer): string =>
  `quick actions run back to back from state ${a.state}: the one running, and any that start within a second, finish first`;

/** When a paused run holds, in plain words (`a`: the run's answer to the pause). */
function pauseWhen(id: string, a: ControlAnswer): string {
  if (a.holding) return `it holds in state ${a.state}`;
  if (a.after_quick) return `${QUICK_NOW(a)}; then the run holds before its next state`;
  // A pause never drops a question: the run still takes its answer (or its deadline), then holds.
  if (a.phase === 'human')
    return `state ${a.state} still waits for its answer (ll-loop answer ${id} … works as before); once it is answered, the run holds before its next state`;
  if (a.phase === 'handoff')
    return `it waits for ll-loop resume (a handoff); once resumed, the run holds before its next state`;
  return `state ${a.state} finishes ${WORK[a.phase] ?? `its ${a.phase.replace(/_/g, ' ')}`}, then the run holds`;
}

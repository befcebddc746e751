/** The words and colour of an open run's badge on its page. Pure: unit-tested. */
import type { RunStatusView } from '../server/wire.js';

/**
 * The badge of an open run: waiting for a person, paused, rate-limited and running each have
 * their own colour and words (the status query tells them apart; a handoff pause is known from
 * its events before the query answers).
 */
export function liveBadge(
  handoff: boolean,
  status: RunStatusView | null,
  lit: string,
): { kind: 'waiting' | 'paused' | 'rate_limited' | 'running'; text: string } {
  if (status?.human) return { kind: 'waiting', text: `waiting for a person · ${status.human.state}` };
  if (status?.phase === 'rate_limited')
    return {
      kind: 'rate_limited',
      text: `rate-limited · ${lit}${status.rate_limited ? ` · again at ${new Date(status.rate_limited.resumes_at).toLocaleTimeString()}` : ''}`,
    };
  if (status?.paused)
    return { kind: 'paused', text: `${status.paused.holding ? 'paused' : 'pausing'} by ${status.paused.by} · ${lit}` };
  if (handoff || status?.phase === 'handoff') return { kind: 'paused', text: `paused on a handoff · ${lit}` };
  return { kind: 'running', text: `running · ${lit}` };
}

/** A parallel state under way, for people (`ll-loop status`): its counts and the items running. */
import type { FanoutStatus } from '../workflows/definitions.js';

/** How many running items `status` names (the rest are counted). */
const LISTED_ITEMS = 8;

/**
 * "fix_all: 37/100 done (3 failed), 4 running", then the running items and their child runs, and
 * the items waiting for a scope another item holds.
 */
export function fanoutLines(fanout: FanoutStatus): string[] {
  const failed = fanout.failed > 0 ? ` (${fanout.failed} failed)` : '';
  const waiting = fanout.waiting ?? [];
  const queued = waiting.length > 0 ? `, ${waiting.length} waiting for a scope` : '';
  const head = `${fanout.state}: ${fanout.done}/${fanout.total} done${failed}, ${fanout.running.length} running${queued}`;
  const lines = [
    ...fanout.running.map((r) => `item ${r.index}: ${r.run_id}`),
    ...waiting.map((w) => `item ${w.index}: waiting for ${w.scopes.join(', ')} (another item holds it)`),
  ];
  const listed = lines.slice(0, LISTED_ITEMS);
  const more = lines.length - listed.length;
  return [head, ...listed, ...(more > 0 ? [`… and ${more} more`] : [])];
}

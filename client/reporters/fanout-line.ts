/** A parallel state under way, for people (`ll-loop status`): its counts and the items running. */
import type { FanoutStatus } from '../../workflows/definitions.js';

/** How many running items `status` names (the rest are counted). */
const LISTED_ITEMS = 8;

/** "fix_all: 37/100 done (3 failed), 4 running", then the running items and their child runs. */
export function fanoutLines(fanout: FanoutStatus): string[] {
  const failed = fanout.failed > 0 ? ` (${fanout.failed} failed)` : '';
  const head = `${fanout.state}: ${fanout.done}/${fanout.total} done${failed}, ${fanout.running.length} running`;
  const listed = fanout.running.slice(0, LISTED_ITEMS).map((r) => `item ${r.index}: ${r.run_id}`);
  const more = fanout.running.length - listed.length;
  return [head, ...listed, ...(more > 0 ? [`… and ${more} more`] : [])];
}

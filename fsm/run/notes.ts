/**
 * Facts about a run that change none of its state but belong in its event stream, recorded while
 * an effect is under way (where a portable run's checkout moved to). Numbered and timed by the
 * core like every event, so the stream stays one numbered sequence.
 */
import type { RunningSnapshot } from './snapshot.js';
import type { RunStreamEvent } from './events.js';

export interface HostChangeNote {
  /** The host that held the run's checkout (none before the first claim). */
  from?: string;
  to: string;
  /** The run's checkout on the new host. */
  dir: string;
  why: string;
}

/** The `host_change` event, and the snapshot with its number taken. */
export function noteHostChange(
  snapshot: RunningSnapshot,
  change: HostChangeNote,
  now: number,
): { snapshot: RunningSnapshot; event: RunStreamEvent } {
  const seq = snapshot.seq + 1;
  const event: RunStreamEvent = {
    event: 'host_change',
    state: snapshot.current,
    ...(change.from === undefined ? {} : { from_host: change.from }),
    to_host: change.to,
    dir: change.dir,
    reason: change.why,
    seq,
    ts: new Date(now).toISOString(),
  };
  return { snapshot: { ...snapshot, seq }, event };
}

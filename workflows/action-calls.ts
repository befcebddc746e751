/**
 * The run's names for its action calls (the `actionCallKeys` rule), which key the worker's
 * journal of completed actions (activities/action-journal.ts, RunActionInput.call_key).
 *
 * One logical call is one `run_action` effect the workflow carries out. Placement.run
 * (workflows/placement.ts) may schedule it several times — a pinned run whose host took nothing
 * within the notice schedules it anew, under a new activity id, until the host answers — and each
 * schedule must reach the journal as the same call, or an action that ended while its host was
 * cut off runs again once the host is back. Every other re-run is a new call with a new name: a
 * step's retries, a re-ask after an output schema miss, a rate limit's second try, the state
 * entered again.
 *
 * Invariants:
 * - the names are deterministic: a counter the workflow advances, once per effect, in the order
 *   it carries them out (a replay gives every call the name it had);
 * - a name is unique within one execution; the journal's key holds the execution's run id too, so
 *   a continued-as-new, reset or resumed execution (a new run id) never meets an earlier
 *   execution's names, though its counter starts again at 1;
 * - a portable run's call claimed on another checkout is a new name (`<n>.<claims>`): a result
 *   journaled in a checkout the run left must not stand in for work in the one it has now.
 */
import type { Placement } from './placement.js';

export class ActionCalls {
  private issued = 0;

  constructor(private readonly placement: Pick<Placement, 'claims'>) {}

  /**
   * A new logical call: what each schedule of it adds to its activity input, read at scheduling
   * time (a claim made in between renames it).
   */
  next(): () => { call_key: string } {
    this.issued += 1;
    const n = this.issued;
    return () => ({ call_key: `${n}.${this.placement.claims}` });
  }
}

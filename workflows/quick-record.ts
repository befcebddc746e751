/**
 * What a run has seen of its shell actions' durations, for the `learnedQuick` rule: a state whose
 * action last finished within {@link LEARNED_QUICK_MS} runs its next action as a burst (a local
 * activity, workflows/burst.ts) even though its timeout makes it an ordinary activity. A check a
 * loop runs after each agent pass (`npm test` with `timeout: 1800` that takes 0.4 s) then costs no
 * round trip through the server: no activity task, no second workflow task. Under the
 * `learnedChains` rule such states also go on in a burst one after another (build, type check,
 * lint, tests in one local activity: {@link QuickRecord.learned}).
 *
 * Decided from results the history holds, so a replay decides the same; the record is the
 * workflow's memory of this run only (a continue-as-new starts it afresh: each state's first
 * action of the new run is an ordinary activity again). A state whose action then takes long runs
 * to its end in the local activity (its timeout still applies; Temporal keeps the task alive with
 * its heartbeat), and its next action is an ordinary activity again.
 */
import type { ActionRequest } from '../fsm/run/snapshot.js';

/** A state's action that last finished within this many ms is taken for quick (the flush's bound: workflows/burst.ts). */
export const LEARNED_QUICK_MS = 1000;
/**
 * Within this many ms it is brief: under the `briefAfterActions` rule an action's activity goes on
 * through it (activities/burst-after.ts). A round trip through the server costs 10–25 ms, a
 * share worth saving of an action this short; past it the run's history and status, which learn
 * of the actions only when the activity ends, would lag too long behind what runs.
 */
export const LEARNED_BRIEF_MS = 5000;

interface Seen {
  /** Its last shell action's duration (ms). */
  ms: number;
  /** The longest timeout its actions had (s): a burst that may go on through it allows that long. */
  timeoutS: number;
}

export class QuickRecord {
  private readonly last = new Map<string, Seen>();

  constructor(private readonly on: boolean) {}

  /** What the run saw: `request`'s shell action took `durationMs`. */
  saw(request: Pick<ActionRequest, 'state' | 'kind' | 'timeout_s'>, durationMs: number): void {
    if (!this.on || request.kind !== 'shell') return;
    const timeoutS = Math.max(request.timeout_s, this.last.get(request.state)?.timeoutS ?? 0);
    this.last.set(request.state, { ms: durationMs, timeoutS });
  }

  /** What the run saw of a burst's later action, known by its state only (its timeout is the burst's to check). */
  sawInBurst(state: string, durationMs: number): void {
    const seen = this.last.get(state);
    if (this.on && seen !== undefined) this.last.set(state, { ...seen, ms: durationMs });
  }

  /** Whether `request`'s state was quick the last time its action ran in this run. */
  quick(request: Pick<ActionRequest, 'state' | 'kind'>): boolean {
    if (!this.on || request.kind !== 'shell') return false;
    const seen = this.last.get(request.state);
    return seen !== undefined && seen.ms <= LEARNED_QUICK_MS;
  }

  /**
   * The states quick the last time (within `withinMs`: {@link LEARNED_BRIEF_MS} for the actions
   * after an action), each with the longest timeout its actions had (fsm/run/burst.ts BurstBounds.learned).
   */
  learned(withinMs: number = LEARNED_QUICK_MS): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [state, seen] of this.last) if (seen.ms <= withinMs) out[state] = seen.timeoutS;
    return out;
  }
}

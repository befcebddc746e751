/**
 * What a run has seen of its shell actions' durations, for the `learnedQuick` rule: a state whose
 * action last finished within {@link LEARNED_QUICK_MS} runs its next action as a burst (a local
 * activity, workflows/burst.ts) even though its timeout makes it an ordinary activity. A check a
 * loop runs after each agent pass (`npm test` with `timeout: 1800` that takes 0.4 s) then costs no
 * round trip through the server: no activity task, no second workflow task.
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

export class QuickRecord {
  /** Each state's last shell action's duration (ms). */
  private readonly last = new Map<string, number>();

  constructor(private readonly on: boolean) {}

  /** What the run saw: `state`'s shell action took `durationMs`. */
  saw(request: Pick<ActionRequest, 'state' | 'kind'>, durationMs: number): void {
    if (this.on && request.kind === 'shell') this.last.set(request.state, durationMs);
  }

  /** Whether `request`'s state was quick the last time its action ran in this run. */
  quick(request: Pick<ActionRequest, 'state' | 'kind'>): boolean {
    if (!this.on || request.kind !== 'shell') return false;
    const ms = this.last.get(request.state);
    return ms !== undefined && ms <= LEARNED_QUICK_MS;
  }
}

/**
 * How a run's spend shows from outside (fsm/run/budget.ts): the `status` query's `spent` and `budget`,
 * and the Web UI's current-details line. Runs without usage or a budget show nothing new.
 */
import { loopLimits, spendLine } from '../fsm/run/budget.js';
import type { LoopDefinition } from '../fsm/schema.js';
import type { Snapshot } from '../fsm/run/snapshot.js';
import type { LoopStatus } from './definitions.js';

/** The status query's spend fields. */
export function budgetStatus(def: LoopDefinition, snapshot: Snapshot): Pick<LoopStatus, 'spent' | 'budget'> {
  const limits = loopLimits(def, snapshot.inheritedBudget);
  return { ...(snapshot.spent ? { spent: snapshot.spent } : {}), ...(limits ? { budget: limits } : {}) };
}

/** ` · $0.42 of $5` for the current details line, when the run has a budget or has spent anything. */
export function budgetDetails(def: LoopDefinition, snapshot: Snapshot): string {
  const line = spendLine(snapshot.spent, loopLimits(def, snapshot.inheritedBudget));
  return line === undefined ? '' : ` · ${line}`;
}

/**
 * A fan-out's shared budget, as one of its items sees it (workflows/fanout-ledger.ts keeps the
 * ledger in the parent). The parent adds up what every item reported spending; when that reaches
 * what the fan-out may spend, it tells each running item, which notes it on its snapshot here.
 *
 * Invariants:
 * - The note only stops agent calls not yet made: before a prompt action or an LLM evaluation
 *   the run acts as if its own budget were spent (`budget_spent`, then `on_budget` or the end
 *   `terminated_by: budget`). A call already in flight finishes and is charged.
 * - Runs that are no item of a ledger-keeping fan-out never get the note: they decide as before.
 */
import type { BudgetHit } from '../types.js';
import type { RunData, RunningSnapshot } from './snapshot.js';

/** The hit a fan-out's ledger reported, once it was noted (the first note stands). */
export function noteSharedBudgetSpent(snapshot: RunningSnapshot, hit: BudgetHit): RunningSnapshot {
  if (snapshot.sharedBudgetSpent !== undefined) return snapshot;
  return { ...snapshot, sharedBudgetSpent: { ...hit, scope: 'loop' } };
}

/** Why the next agent call may not be made: the fan-out this run is an item of spent its budget. */
export function sharedBudgetHit(snap: Pick<RunData, 'sharedBudgetSpent'>): BudgetHit | undefined {
  return snap.sharedBudgetSpent;
}

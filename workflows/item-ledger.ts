/**
 * An item of a fan-out that keeps a shared budget ledger (workflows/fanout-ledger.ts), its side:
 * it reports its whole spend to the parent whenever it grew, and notes the parent's word that the
 * fan-out's budget is spent on its snapshot (fsm/run/shared-budget.ts), so it makes no further
 * agent call. Runs that are no such item (`input.child.ledger` unset) do nothing here.
 */
import { getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import { noteSharedBudgetSpent } from '../fsm/run/shared-budget.js';
import type { Transition } from '../fsm/run/snapshot.js';
import type { Spend } from '../fsm/types.js';
import type { LoopWorkflowInput } from './definitions.js';
import { fanoutBudgetSpentSignal, itemSpentSignal } from './fanout-signals.js';

export interface ItemLedger {
  /** Tell the parent the run's spend if it grew since the last report. */
  report(): void;
}

export function itemLedger(
  input: LoopWorkflowInput,
  get: () => Transition,
  set: (next: Transition) => void,
): ItemLedger | undefined {
  if (!input.child?.ledger) return undefined;
  const parent = getExternalWorkflowHandle(input.child.parent);
  const runId = workflowInfo().workflowId;
  setHandler(fanoutBudgetSpentSignal, (hit) => {
    const at = get();
    if (at.snapshot.status !== 'running') return;
    set({ ...at, snapshot: noteSharedBudgetSpent(at.snapshot, hit) } as Transition);
  });
  // Continued as new: the spend is reported again once (cumulative, so the parent is unchanged).
  let reported: Spend | undefined;
  return {
    report: () => {
      const spent = get().snapshot.spent;
      if (spent === undefined || same(spent, reported)) return;
      reported = spent;
      // A parent that is gone has nobody to tell; the child's result carries its spend anyway.
      parent.signal(itemSpentSignal, { run_id: runId, spent }).catch(() => undefined);
    },
  };
}

function same(a: Spend, b: Spend | undefined): boolean {
  return b !== undefined && a.cost_usd === b.cost_usd && a.tokens === b.tokens && a.agent_ms === b.agent_ms;
}

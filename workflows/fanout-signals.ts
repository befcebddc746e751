/**
 * The signals between a fan-out and its items (workflows cannot query or update one another;
 * they can signal). Their names are recorded in histories: never rename them.
 */
import { defineSignal } from '@temporalio/workflow';
import type { BudgetHit } from '../fsm/run/budget.js';
import type { Spend } from '../fsm/types.js';

/** An item's whole spend so far (not the increment: a report that arrives late or twice changes nothing). */
export interface ItemSpend {
  run_id: string;
  spent: Spend;
}

/** Item → parent: what the item has spent so far (workflows/item-ledger.ts sends it). */
export const itemSpentSignal = defineSignal<[ItemSpend]>('fanoutItemSpent');

/** Parent → running items: the fan-out's shared budget is spent (fsm/run/shared-budget.ts notes it). */
export const fanoutBudgetSpentSignal = defineSignal<[BudgetHit]>('fanoutBudgetSpent');

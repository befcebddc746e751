/**
 * The signals between a fan-out and its items (workflows cannot query or update one another;
 * they can signal). Their names are recorded in histories: never rename them.
 */
import { defineSignal } from '@temporalio/workflow';
import type { BudgetHit } from '../fsm/types.js';
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

/** A rate limit's pause: until when, and what the provider said. */
export interface ItemPause {
  run_id: string;
  until_ms: number;
  kind: string;
  message: string;
}

/** Item → parent: the item is pausing for a rate limit until `until_ms` (workflows/item-pauses.ts). */
export const itemRateLimitedSignal = defineSignal<[ItemPause]>('fanoutItemRateLimited');

/** Parent → the other running items: make no agent call before `until_ms` (a sibling hit the limit). */
export const fanoutPauseSignal = defineSignal<[ItemPause]>('fanoutPause');

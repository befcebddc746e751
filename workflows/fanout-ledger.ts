/**
 * The ledger of a fan-out under a budget (the `sharedBudget` rule): the parent adds up what its
 * items spent, so they spend from one amount instead of each from a copy of it.
 *
 * - Each item starts with what is left of the fan-out's budget then (not what was left when the
 *   fan-out began), and reports its whole spend to the parent after every agent call (a signal).
 * - When the items together reach a limit, the parent signals every running item, which makes no
 *   further agent call (fsm/run/shared-budget.ts), and starts no further item (they join as
 *   `skipped`). The join then charges the sum as before, and the budget verdict routes.
 * - Bound: calls already in flight when the limit is reached finish and are charged, so the
 *   fan-out may spend past its budget by at most about one agent call per running item (and
 *   whatever a nested sub-loop of an item had been given), never by whole budgets.
 * - Spend reports are cumulative, so a late or repeated one changes nothing; an item's own result
 *   at its end is the final word for it.
 */
import { setHandler } from '@temporalio/workflow';
import { addSpend, BUDGET_LIMITS, NO_SPEND, reachedLimit, spentIn } from '../fsm/run/budget.js';
import type { BudgetHit, BudgetLimits, ParallelItemResult, Spend } from '../fsm/types.js';
import type { FanoutChildren } from './fanout-children.js';
import { fanoutBudgetSpentSignal, itemSpentSignal } from './fanout-signals.js';

export class FanoutLedger {
  /** Items ended before this fan-out (carried across continue-as-new or a resume). */
  private carried: Spend = NO_SPEND;
  /** Each item's spend by its run id: the largest it reported, then its result's. */
  private readonly spentBy = new Map<string, Spend>();
  private hit: BudgetHit | undefined;

  constructor(
    private readonly budget: BudgetLimits,
    done: readonly ParallelItemResult[],
    private readonly children: FanoutChildren,
  ) {
    for (const r of done) if (r.spent !== undefined) this.carried = addSpend(this.carried, r.spent);
    // Spent while an item was starting: it learns once it has started.
    children.started((runId) => {
      if (this.hit !== undefined) this.children.signal(fanoutBudgetSpentSignal, this.hit, (id) => id === runId);
    });
    setHandler(itemSpentSignal, ({ run_id, spent }) => {
      const known = this.spentBy.get(run_id);
      // Reports only for items of this fan-out that have not ended (their result is final).
      if (known === undefined || !this.children.isRunning(run_id)) return;
      this.spentBy.set(run_id, largest(known, spent));
      this.check();
    });
    this.check();
  }

  /** The items together spent the fan-out's budget: start no further one. */
  exhausted(): boolean {
    return this.hit !== undefined;
  }

  /** What an item starting now may spend: what is left of the fan-out's budget. */
  remaining(): BudgetLimits {
    const total = this.total();
    const out: BudgetLimits = {};
    for (const limit of BUDGET_LIMITS) {
      const max = this.budget[limit];
      if (max !== undefined) out[limit] = Math.max(0, Math.round((max - spentIn(total, limit)) * 1e7) / 1e7);
    }
    return out;
  }

  /** An item is starting: it counts (nothing spent yet); once started it is told if the budget is spent. */
  starting(runId: string): void {
    this.spentBy.set(runId, NO_SPEND);
  }

  /** An item ended: its result's spend is final. */
  ended(result: ParallelItemResult): void {
    if (result.run_id === undefined) return;
    if (result.spent !== undefined) this.spentBy.set(result.run_id, result.spent);
    this.check();
  }

  /** Stop listening: a report that comes after the join is for nothing. */
  close(): void {
    setHandler(itemSpentSignal, undefined);
  }

  private total(): Spend {
    let total = this.carried;
    for (const spent of this.spentBy.values()) total = addSpend(total, spent);
    return total;
  }

  private check(): void {
    if (this.hit !== undefined) return;
    const reached = reachedLimit(this.budget, this.total());
    if (reached === undefined) return;
    this.hit = { scope: 'loop', ...reached };
    this.children.signal(fanoutBudgetSpentSignal, this.hit);
  }
}

/** Per dimension, the larger: reports are cumulative, so the larger is the later. */
function largest(a: Spend, b: Spend): Spend {
  return {
    cost_usd: Math.max(a.cost_usd, b.cost_usd),
    tokens: Math.max(a.tokens, b.tokens),
    agent_ms: Math.max(a.agent_ms, b.agent_ms),
  };
}

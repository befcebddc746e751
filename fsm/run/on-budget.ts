/**
 * Folding what an agent call (or a sub-loop) spent into the run's spend, and acting on a budget
 * it spent (fsm/run/budget.ts holds the arithmetic, `budgetSpent` in fsm/run/steps.ts the routing).
 *
 * Gate: spend grows only from reported usage, and only runs with a budget (the loop's, the
 * state's, or one a parent passed) are checked, so runs of earlier releases decide as they did.
 * A terminal state's call is charged but never stops the run: it is ending there anyway.
 */
import { budgetHit, charged, hasBudget, usageSpend } from './budget.js';
import type { Draft } from './draft.js';
import type { StateConfig } from '../schema.js';
import type { RunEvent } from './snapshot.js';
import { budgetSpent } from './steps.js';
import type { ActionResult, LlmUsage, Spend } from '../types.js';

/** Charge an agent call's usage (time: reported, else `fallbackMs`); true when that spent a budget and the run moved on. */
export function chargeAgentCall(
  d: Draft,
  state: StateConfig,
  usage: LlmUsage | undefined,
  fallbackMs: number | undefined,
  action: ActionResult | null,
): boolean {
  if (usage === undefined) return false;
  return chargeSpend(d, state, usageSpend(usage, fallbackMs), action);
}

/** Charge what a finished sub-loop spent to the run and to its `loop:` state; true when a budget is spent. */
export function chargeSpend(
  d: Draft,
  state: StateConfig,
  spend: Spend | undefined,
  action: ActionResult | null,
): boolean {
  if (spend === undefined) return false;
  Object.assign(d.snap, charged(d.snap, d.snap.current, spend));
  if (state.terminal || !hasBudget(d.def, d.snap, state)) return false;
  const hit = budgetHit(d.def, d.snap, d.snap.current);
  if (hit === undefined) return false;
  budgetSpent(d, state, hit, action);
  return true;
}

/** The usage an LLM evaluation's fact carries, if any. */
export function llmUsage(event: RunEvent): LlmUsage | undefined {
  return 'usage' in event ? event.usage : undefined;
}

/**
 * Budgets (`budget:` at loop level and per state): what agent calls spent, and whether a limit is
 * reached. Pure arithmetic on the snapshot; the steps that act on it are in fsm/run/steps.ts
 * (`budgetSpent`) and fsm/run/on-budget.ts.
 *
 * Invariants:
 * - Spend grows only from usage an agent call reported (a prompt action's `usage`, an LLM
 *   evaluation's reply) or a sub-loop's reported `spent`: runs without usage — every history
 *   recorded before budgets — keep a snapshot without `spent` and decide exactly as before.
 * - A limit is reached when the spend is at least its maximum (`spent >= max`), in any dimension.
 * - A sub-loop's loop limits are the smaller of its own and what its parent had left
 *   (`snapshot.inheritedBudget`), so a child spends from its parent's budget.
 */
import type { LoopDefinition, StateConfig } from '../schema.js';
import type { RunData } from './snapshot.js';
import type { BudgetHit, BudgetLimit, BudgetLimits, LlmUsage, Spend } from '../types.js';

export const BUDGET_LIMITS = [
  'max_cost_usd',
  'max_tokens',
  'max_agent_seconds',
] as const satisfies readonly BudgetLimit[];

export const NO_SPEND: Spend = { cost_usd: 0, tokens: 0, agent_ms: 0 };

/** What one agent call spent: tokens in and out, its cost, its time (reported, else `fallbackMs`). */
export function usageSpend(usage: LlmUsage, fallbackMs?: number): Spend {
  return {
    cost_usd: usage.cost_usd ?? 0,
    tokens: (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0),
    agent_ms: usage.duration_ms ?? fallbackMs ?? 0,
  };
}

export function addSpend(a: Spend | undefined, b: Spend): Spend {
  const base = a ?? NO_SPEND;
  // Rounded to a tenth of a micro-dollar: sums of decimal costs do not drift in the display.
  return {
    cost_usd: Math.round((base.cost_usd + b.cost_usd) * 1e7) / 1e7,
    tokens: base.tokens + b.tokens,
    agent_ms: base.agent_ms + b.agent_ms,
  };
}

/** The spend fields of a snapshot after `spend` was charged to the run and to `state`. */
export function charged(
  snap: Pick<RunData, 'spent' | 'spentByState'>,
  state: string,
  spend: Spend,
): Pick<RunData, 'spent' | 'spentByState'> {
  return {
    spent: addSpend(snap.spent, spend),
    spentByState: { ...snap.spentByState, [state]: addSpend(snap.spentByState?.[state], spend) },
  };
}

/** The run's loop limits: its own `budget:`, lowered to what a parent left it. Undefined: none. */
export function loopLimits(
  def: Pick<LoopDefinition, 'budget'>,
  inherited: BudgetLimits | undefined,
): BudgetLimits | undefined {
  if (def.budget === undefined && inherited === undefined) return undefined;
  const out: BudgetLimits = {};
  for (const key of BUDGET_LIMITS) {
    const values = [def.budget?.[key], inherited?.[key]].filter((v): v is number => v !== undefined);
    if (values.length) out[key] = Math.min(...values);
  }
  return out;
}

/** True when the run or `state` has any limit to check (the gate: runs without budgets do nothing new). */
export function hasBudget(
  def: LoopDefinition,
  snap: Pick<RunData, 'inheritedBudget'>,
  state: StateConfig | undefined,
): boolean {
  return def.budget !== undefined || snap.inheritedBudget !== undefined || state?.budget !== undefined;
}

/** The spend of `spend` in the unit of `limit`. */
export function spentIn(spend: Spend, limit: BudgetLimit): number {
  if (limit === 'max_cost_usd') return spend.cost_usd;
  if (limit === 'max_tokens') return spend.tokens;
  return spend.agent_ms / 1000;
}

/** The first limit of `limits` that `spend` has reached (cost, then tokens, then agent time). */
export function reachedLimit(
  limits: BudgetLimits | undefined,
  spend: Spend | undefined,
): { limit: BudgetLimit; spent: number; max: number } | undefined {
  if (limits === undefined) return undefined;
  for (const limit of BUDGET_LIMITS) {
    const max = limits[limit];
    if (max === undefined) continue;
    const spent = spentIn(spend ?? NO_SPEND, limit);
    if (spent >= max) return { limit, spent, max };
  }
  return undefined;
}

/** The limit the current state's spend or the run's spend has reached: the state's own first. */
export function budgetHit(
  def: LoopDefinition,
  snap: Pick<RunData, 'spent' | 'spentByState' | 'inheritedBudget'>,
  name: string,
): BudgetHit | undefined {
  const own = reachedLimit(def.states[name]?.budget, snap.spentByState?.[name]);
  if (own) return { scope: 'state', ...own };
  const loop = reachedLimit(loopLimits(def, snap.inheritedBudget), snap.spent);
  return loop ? { scope: 'loop', ...loop } : undefined;
}

/** What is left of the run's loop limits (what a sub-loop may spend), or undefined without any. */
export function remainingBudget(
  def: LoopDefinition,
  snap: Pick<RunData, 'spent' | 'inheritedBudget'>,
): BudgetLimits | undefined {
  const limits = loopLimits(def, snap.inheritedBudget);
  if (limits === undefined) return undefined;
  const spent = snap.spent ?? NO_SPEND;
  const out: BudgetLimits = {};
  for (const limit of BUDGET_LIMITS) {
    const max = limits[limit];
    if (max !== undefined) out[limit] = Math.max(0, round(max - spentIn(spent, limit)));
  }
  return out;
}

/**
 * What a `loop:` state's child may spend: what is left of the run's loop limits and of the state's
 * own `budget:` (the smaller of the two per limit), or undefined when neither has any.
 */
export function childBudget(
  def: LoopDefinition,
  snap: Pick<RunData, 'spent' | 'spentByState' | 'inheritedBudget'>,
  name: string,
): BudgetLimits | undefined {
  const loop = remainingBudget(def, snap);
  const own = def.states[name]?.budget;
  if (own === undefined) return loop;
  const spent = snap.spentByState?.[name] ?? NO_SPEND;
  const state: BudgetLimits = {};
  for (const limit of BUDGET_LIMITS) {
    const max = own[limit];
    if (max !== undefined) state[limit] = Math.max(0, round(max - spentIn(spent, limit)));
  }
  return loopLimits({ budget: state }, loop);
}

/**
 * A call that states its maximum (an API provider's `max_tokens`) must fit in the tokens left:
 * the state's and the run's. The hit when it does not (`needed` set), else undefined.
 */
export function cannotCover(
  def: LoopDefinition,
  snap: Pick<RunData, 'spent' | 'spentByState' | 'inheritedBudget'>,
  name: string,
  maxTokens: number | undefined,
): BudgetHit | undefined {
  if (maxTokens === undefined) return undefined;
  const checks: Array<{ scope: BudgetHit['scope']; max: number | undefined; spent: number }> = [
    { scope: 'state', max: def.states[name]?.budget?.max_tokens, spent: snap.spentByState?.[name]?.tokens ?? 0 },
    { scope: 'loop', max: loopLimits(def, snap.inheritedBudget)?.max_tokens, spent: snap.spent?.tokens ?? 0 },
  ];
  for (const { scope, max, spent } of checks) {
    if (max !== undefined && max - spent < maxTokens)
      return { scope, limit: 'max_tokens', spent, max, needed: maxTokens };
  }
  return undefined;
}

function round(n: number): number {
  return Math.round(n * 1e7) / 1e7;
}

/** A spend in the unit of `limit`, for messages: `$5.03`, `1200 tokens`, `312.4s`. */
export function formatIn(limit: BudgetLimit, value: number): string {
  if (limit === 'max_cost_usd') return formatUsd(value);
  if (limit === 'max_tokens') return `${value} tokens`;
  return `${Math.round(value * 10) / 10}s`;
}

/** Dollars with cents, or with up to four decimals below ten cents (agent calls can cost fractions of a cent). */
export function formatUsd(value: number): string {
  if (Number.isInteger(value)) return `$${value}`;
  if (value < 0.1) return `$${Number(value.toFixed(4))}`;
  return `$${value.toFixed(2)}`;
}

/** The run's error when a spent budget ends it (`terminated_by: budget`). */
export function budgetMessage(hit: BudgetHit, state: string): string {
  const whose = hit.scope === 'state' ? `the budget of state "${state}"` : 'budget';
  const spent = `${formatIn(hit.limit, hit.spent)} of ${hit.limit} ${hit.max}`;
  if (hit.needed !== undefined) {
    return `${whose} cannot cover the next agent call in state "${state}": it may use up to ${hit.needed} tokens, and ${spent} are spent`;
  }
  return hit.scope === 'state' ? `${whose} is spent: ${spent}` : `budget spent in state "${state}": ${spent}`;
}

/** A short spend line for status displays: `$0.42 of $5`, `1200 of 5000 tokens`, or the spend alone. */
export function spendLine(spent: Spend | undefined, limits: BudgetLimits | undefined): string | undefined {
  const s = spent ?? NO_SPEND;
  const parts: string[] = [];
  if (limits?.max_cost_usd !== undefined) parts.push(`${formatUsd(s.cost_usd)} of ${formatUsd(limits.max_cost_usd)}`);
  else if (s.cost_usd > 0) parts.push(formatUsd(s.cost_usd));
  if (limits?.max_tokens !== undefined) parts.push(`${s.tokens} of ${limits.max_tokens} tokens`);
  else if (s.tokens > 0 && limits === undefined) parts.push(`${s.tokens} tokens`);
  if (limits?.max_agent_seconds !== undefined)
    parts.push(`${Math.round(s.agent_ms / 100) / 10}s of ${limits.max_agent_seconds}s agent time`);
  if (!parts.length) return undefined;
  return parts.join(' · ');
}

/**
 * `cannot_judge`: an `llm_structured` judge that may abstain. A state lets its judge answer
 * `cannot_judge` (little-loops' abstention verdict) when it says `cannot_judge: true` or routes
 * the verdict (`on_cannot_judge:`, or `cannot_judge:` in its `route:` table); the judge's schema
 * then lists it, and the verdict routes like any other. A state that does neither asks exactly
 * the schema it always did. Pure.
 */
import { CANNOT_JUDGE, withCannotJudge } from './llm-schema.js';
import type { StateConfig } from './schema.js';

/** True when the state's judge may answer `cannot_judge`. `cannot_judge: false` turns it off. */
export function mayAbstain(state: StateConfig): boolean {
  const field = state.cannot_judge;
  if (field === false) return false;
  if (field === true || typeof field === 'string') return true;
  const routes = state as Record<string, unknown>;
  return typeof routes[`on_${CANNOT_JUDGE}`] === 'string' || state.route?.[CANNOT_JUDGE] !== undefined;
}

/** The schema the state's judge answers: with `cannot_judge` among its verdicts when it may abstain. */
export function judgeSchema(state: StateConfig, schema: Record<string, unknown>): Record<string, unknown> {
  return mayAbstain(state) ? withCannotJudge(schema) : schema;
}

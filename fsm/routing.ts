/**
 * Layer 2: verdict → next state (seed 001 "Resolution Order"). Pure lookups on the state config;
 * `next` and `terminal` are handled by the step function before a verdict exists.
 */
import { interpolate, type InterpolationScope } from './interpolate.js';
import type { LoopDefinition, StateConfig } from './schema.js';

/** `on_success`/`on_failure` (seed 000) are aliases of `on_yes`/`on_no`, in both directions. */
export const VERDICT_ALIASES: Readonly<Record<string, string>> = {
  yes: 'success',
  success: 'yes',
  no: 'failure',
  failure: 'no',
};

/** The special target that re-enters the current state. */
export const CURRENT = '$current';

function shorthand(state: StateConfig, verdict: string): string | undefined {
  const record = state as Record<string, unknown>;
  const direct = record[`on_${verdict}`];
  if (typeof direct === 'string') return direct;
  const alias = VERDICT_ALIASES[verdict];
  const aliased = alias === undefined ? undefined : record[`on_${alias}`];
  return typeof aliased === 'string' ? aliased : undefined;
}

function fromTable(route: Record<string, string>, verdict: string): string | undefined {
  if (verdict === 'error') return route._error ?? route.error ?? route._;
  const alias = VERDICT_ALIASES[verdict];
  return route[verdict] ?? (alias === undefined ? undefined : route[alias]) ?? route._;
}

/**
 * The target (uninterpolated, possibly `$current`) for a verdict, or undefined when the state
 * has no route for it. A `route:` table, when present, is the only table consulted.
 */
export function routeFor(state: StateConfig, verdict: string): string | undefined {
  if (state.route) return fromTable(state.route, verdict);
  return shorthand(state, verdict);
}

/** Every transition target a state declares, with the key that declares it (for validation). */
export function declaredTargets(state: StateConfig): Array<{ key: string; target: string }> {
  const out: Array<{ key: string; target: string }> = [];
  if (state.next) out.push({ key: 'next', target: state.next });
  for (const [verdict, target] of Object.entries(state.route ?? {})) out.push({ key: `route.${verdict}`, target });
  for (const [key, value] of Object.entries(state)) {
    if (key.startsWith('on_') && typeof value === 'string') out.push({ key, target: value });
  }
  return out;
}

/** `on_*` keys that are not verdict routes: where maintain mode restarts, where a spent budget goes. */
export const NOT_VERDICT_ROUTES: readonly string[] = ['on_maintain', 'on_budget'];

/** True when the state declares any shorthand `on_*` verdict route (on_maintain and on_budget excluded). */
export function hasShorthand(state: StateConfig): boolean {
  return Object.entries(state).some(
    ([k, v]) => k.startsWith('on_') && !NOT_VERDICT_ROUTES.includes(k) && typeof v === 'string',
  );
}

/**
 * A target as written (a state name, `$current`, or a `${…}` template rendered now) → the state
 * it names, or an error message saying why it names none. `label` names the field in messages.
 */
export function resolveTarget(
  def: LoopDefinition,
  from: string,
  target: string,
  scope: InterpolationScope,
  label: string,
): { to: string } | { error: string } {
  let to: string;
  try {
    to = target === CURRENT ? from : interpolate(target, scope);
  } catch (err) {
    return { error: `state "${from}": ${label} ${target}: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (to === CURRENT) to = from;
  if (!(to in def.states)) {
    return {
      error: `state "${from}": ${label} "${to}" (from ${target}) is not a state; known: ${Object.keys(def.states).join(', ')}`,
    };
  }
  return { to };
}

/** The verdicts among `verdicts` that the state routes nowhere (a run would end with an error). */
export function unroutedVerdicts(state: StateConfig, verdicts: readonly string[]): string[] {
  return verdicts.filter((verdict) => routeFor(state, verdict) === undefined);
}

/**
 * A run's options in their three parts — its rules, its placement, its tuning — and the one flat
 * object its input records (LoopRunOptions, the shape every release recorded). The client builds
 * the recorded options here from the three parts, once; readers take apart what they need.
 * Free of the workflow SDK and of Node built-ins, so both the CLI and the workflow import it.
 */
import type { LoopRunOptions, RunPlacement, RunRules, RunTuning } from './definitions.js';

/** Every key of each part: a key of LoopRunOptions in none of them fails the type check below. */
export const RUN_RULE_KEYS = [
  'closeAsOutcome',
  'failOnNonTerminal',
  'maskLoopEnv',
  'checkAnswers',
  'pauseOnRateLimit',
  'stdoutSignals',
  'childCheckout',
  'steering',
  'quickBursts',
  'actionCallKeys',
  'sharedBudget',
  'shareRateLimits',
  'itemScopes',
  'localScopeRequest',
] as const satisfies ReadonlyArray<keyof RunRules>;
export const PLACEMENT_KEYS = [
  'cwd',
  'actionQueue',
  'portable',
  'hostNoticeS',
  'placedOn',
  'searchAttributes',
] as const satisfies ReadonlyArray<keyof RunPlacement>;
export const TUNING_KEYS = [
  'localActivityMaxTimeoutS',
  'historyEventLimit',
  'heartbeatTimeoutS',
] as const satisfies ReadonlyArray<keyof RunTuning>;

type Listed = (typeof RUN_RULE_KEYS)[number] | (typeof PLACEMENT_KEYS)[number] | (typeof TUNING_KEYS)[number];
/** Compile-time check: every option is listed in one part. */
const everyKeyListed: Record<Exclude<keyof LoopRunOptions, Listed>, never> = {};
void everyKeyListed;

/** A run's options in their parts. */
export interface RunOptionParts {
  rules: RunRules;
  placement: RunPlacement;
  tuning: RunTuning;
}

function pick<T>(from: Record<string, unknown>, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out as T;
}

/** The options a run's input records, taken apart (any release's: their shape is the same). */
export function splitRunOptions(options: LoopRunOptions): RunOptionParts {
  const raw = options as unknown as Record<string, unknown>;
  return { rules: pick(raw, RUN_RULE_KEYS), placement: pick(raw, PLACEMENT_KEYS), tuning: pick(raw, TUNING_KEYS) };
}

/** The options a run's input records, from its parts (no part's keys overlap another's). */
export function recordedRunOptions(parts: RunOptionParts): LoopRunOptions {
  return { ...parts.placement, ...parts.tuning, ...parts.rules };
}

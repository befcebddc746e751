/**
 * The kinds of loop `ll-loop create` writes: seed 001's "Common Loop Patterns" (sub-loop
 * composition aside), each generated through one of seed 000's paradigms.
 */
export const LOOP_KINDS = ['fix', 'constraints', 'metric', 'sequence', 'each'] as const;
export type LoopKind = (typeof LOOP_KINDS)[number];

export interface KindInfo {
  /** As the wizard lists it. */
  label: string;
  /** The one-line mental model from seed 001. */
  description: string;
}

export const KIND_INFO: Record<LoopKind, KindInfo> = {
  fix: { label: 'Fix until clean', description: 'Run checks, fix what fails, repeat until they all pass' },
  constraints: {
    label: 'Maintain constraints',
    description: 'Keep checks passing: re-check on an interval and fix what breaks (runs until stopped)',
  },
  metric: {
    label: 'Drive a metric toward a target',
    description: 'Measure a number, improve it, repeat until it reaches the target or stops improving',
  },
  sequence: { label: 'Run a sequence of steps', description: 'Do X, then Y, … until a check passes' },
  each: {
    label: 'Run a loop for each item, side by side',
    description: 'List items with a command, run a loop for each (a parallel state, N at once), join the results',
  },
};

function isLoopKind(value: string): value is LoopKind {
  return (LOOP_KINDS as readonly string[]).includes(value);
}

/**
 * Other names users reach for: the wizard's labels and the paradigm each kind compiles through
 * (seed 000), so `--kind fix-until-clean` or `--kind convergence` mean what they say.
 */
const KIND_ALIASES: Record<string, LoopKind> = {
  'fix-until-clean': 'fix',
  goal: 'fix',
  maintain: 'constraints',
  'maintain-constraints': 'constraints',
  invariants: 'constraints',
  convergence: 'metric',
  'drive-a-metric': 'metric',
  imperative: 'sequence',
  steps: 'sequence',
  parallel: 'each',
  'fan-out': 'each',
  fanout: 'each',
  map: 'each',
  'for-each': 'each',
};

/** The kind `value` names (case-insensitive, aliases included), if any. */
export function parseLoopKind(value: string): LoopKind | undefined {
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');
  return isLoopKind(key) ? key : KIND_ALIASES[key];
}

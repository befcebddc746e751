/**
 * The kinds of loop `ll-loop create` writes: seed 001's "Common Loop Patterns" (sub-loop
 * composition aside), each generated through one of seed 000's paradigms.
 */
export const LOOP_KINDS = ['fix', 'constraints', 'metric', 'sequence'] as const;
export type LoopKind = (typeof LOOP_KINDS)[number];

export interface KindInfo {
  /** As the wizard lists it. */
  label: string;
  /** The one-line mental model from seed 001. */
  description: string;
}

export const KIND_INFO: Record<LoopKind, KindInfo> = {
  fix: { label: 'Fix until clean', description: 'Run checks, fix what fails, repeat until they all pass' },
  constraints: { label: 'Maintain constraints', description: 'Keep checks passing: re-check on an interval and fix what breaks (runs until stopped)' },
  metric: { label: 'Drive a metric toward a target', description: 'Measure a number, improve it, repeat until it reaches the target or stops improving' },
  sequence: { label: 'Run a sequence of steps', description: 'Do X, then Y, … until a check passes' },
};

export function isLoopKind(value: string): value is LoopKind {
  return (LOOP_KINDS as readonly string[]).includes(value);
}

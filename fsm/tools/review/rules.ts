/**
 * `ll-loop review`'s rules, in the order findings are listed, and the review itself. Severities
 * (docs/decisions.md, "Review"): the generator-evaluator back-route (seed 001) and a cycle no
 * route leaves are errors, the rest warnings. Pure.
 */
import type { LoopDefinition } from '../../schema.js';
import type { Finding, ReviewOptions, ReviewRule } from './finding.js';
import { generatorBackRoute, unboundedCycle, unreachableState } from './route-rules.js';
import { agentTamperGuard, lowMaxIterations, missingOnError, unusedCapture } from './state-rules.js';

export const REVIEW_RULES: readonly ReviewRule[] = [
  generatorBackRoute,
  unboundedCycle,
  unreachableState,
  agentTamperGuard,
  missingOnError,
  unusedCapture,
  lowMaxIterations,
];

/** Every rule's findings for a valid loop, errors first, then in rule order. */
export function reviewLoop(def: LoopDefinition, opts: ReviewOptions): Finding[] {
  const all = REVIEW_RULES.flatMap((rule) => rule.check(def, opts));
  const rank = { error: 0, warning: 1, info: 2 } as const;
  return all.sort((a, b) => rank[a.severity] - rank[b.severity]);
}

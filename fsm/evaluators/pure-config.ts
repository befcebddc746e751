/**
 * Configs the pure evaluators accept: the schema's `evaluate:` members after template resolution.
 *
 * They are the schema's *input* shapes, so fields with schema defaults (`operator`, `negate`,
 * `tolerance`, `direction`) may be absent; a parsed `EvaluateConfig` member is always assignable.
 */
import type { z } from 'zod';
import type {
  convergenceEvaluate,
  exitCodeEvaluate,
  harborScorerEvaluate,
  mcpResultEvaluate,
  outputContainsEvaluate,
  outputJsonEvaluate,
  outputNumericEvaluate,
} from '../schema.js';
import type { classifyEvaluate, openQuestionStallEvaluate, scoreStallEvaluate } from '../original-fields.js';

/** Evaluator types judged here, without I/O. `llm_structured` is not one of them. */
export const PURE_EVALUATOR_TYPES = [
  'exit_code',
  'output_numeric',
  'output_json',
  'output_contains',
  'convergence',
  'harbor_scorer',
  'mcp_result',
  'classify',
  'score_stall',
  'open_question_stall',
] as const;
export type PureEvaluatorType = (typeof PURE_EVALUATOR_TYPES)[number];

export type ExitCodeConfig = z.input<typeof exitCodeEvaluate>;
export type OutputNumericConfig = z.input<typeof outputNumericEvaluate>;
export type OutputJsonConfig = z.input<typeof outputJsonEvaluate>;
export type OutputContainsConfig = z.input<typeof outputContainsEvaluate>;
/** `previous` may arrive as a number once `${…}` has been resolved. */
export type ConvergenceConfig = Omit<z.input<typeof convergenceEvaluate>, 'previous'> & {
  previous?: string | number;
};
export type HarborScorerConfig = z.input<typeof harborScorerEvaluate>;
export type McpResultConfig = z.input<typeof mcpResultEvaluate>;
export type ClassifyConfig = z.input<typeof classifyEvaluate>;
export type ScoreStallConfig = z.input<typeof scoreStallEvaluate> | z.input<typeof openQuestionStallEvaluate>;

/** Any config `evaluatePure` accepts. */
export type PureEvaluatorConfig =
  | ExitCodeConfig
  | OutputNumericConfig
  | OutputJsonConfig
  | OutputContainsConfig
  | ConvergenceConfig
  | HarborScorerConfig
  | McpResultConfig
  | ClassifyConfig
  | ScoreStallConfig;

/** True when `type` names an evaluator that `evaluatePure` runs. */
export function isPureEvaluator(type: string): type is PureEvaluatorType {
  return (PURE_EVALUATOR_TYPES as readonly string[]).includes(type);
}

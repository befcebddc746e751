/**
 * The deterministic evaluators: a typed registry of pure functions and one entry point.
 *
 * Every evaluator is total: a bad config, unparsable output or an unexpected exception becomes
 * `{ verdict: 'error', details: { error } }`, never a throw.
 */
import type { EvalResult } from '../types.js';
import { evaluateClassify } from './classify.js';
import { evaluateConvergence } from './convergence.js';
import { errorMessage, evalError } from './error-result.js';
import type { EvalInput, Evaluator } from './eval-input.js';
import { evaluateExitCode } from './exit-code.js';
import { evaluateHarborScorer } from './harbor-scorer.js';
import { evaluateMcpResult } from './mcp-result.js';
import { evaluateOutputContains } from './output-contains.js';
import { evaluateOutputJson } from './output-json.js';
import { evaluateOutputNumeric } from './output-numeric.js';
import { evaluateScoreStall } from './score-stall.js';
import { isPureEvaluator, type PureEvaluatorConfig, type PureEvaluatorType } from './pure-config.js';

export type { EvalInput, Evaluator } from './eval-input.js';
export {
  PURE_EVALUATOR_TYPES,
  isPureEvaluator,
  type PureEvaluatorConfig,
  type PureEvaluatorType,
} from './pure-config.js';
export { parseJsonPath } from './json-path.js';

/** The registry: one pure evaluator per type, each taking the config of its own type. */
export const pureEvaluators: {
  readonly [K in PureEvaluatorType]: Evaluator<Extract<PureEvaluatorConfig, { type: K }>>;
} = {
  exit_code: evaluateExitCode,
  output_numeric: evaluateOutputNumeric,
  output_json: evaluateOutputJson,
  output_contains: evaluateOutputContains,
  convergence: evaluateConvergence,
  harbor_scorer: evaluateHarborScorer,
  mcp_result: evaluateMcpResult,
  classify: evaluateClassify,
  score_stall: evaluateScoreStall,
  open_question_stall: evaluateScoreStall,
};

/**
 * Runs the evaluator named by `config.type`. Templated fields of `config` must already be resolved
 * (numbers may still be numeric strings). Never throws.
 */
export function evaluatePure(config: PureEvaluatorConfig, input: EvalInput): EvalResult {
  const type: string = config.type;
  if (!isPureEvaluator(type)) return evalError(`${JSON.stringify(type)} is not a deterministic evaluator`);
  // The registry entry for `type` takes exactly the config member whose `type` is `type`.
  const evaluator = pureEvaluators[type] as Evaluator<PureEvaluatorConfig>;
  try {
    return evaluator(config, input);
  } catch (thrown) {
    return evalError(`${type} evaluator failed: ${errorMessage(thrown)}`);
  }
}

/**
 * The activity input of a `contract` or `comparator` evaluation (fsm/file-judges-schema.ts): its
 * templated fields rendered, the judge's provider and model chosen as for `llm_structured`. The
 * activity (activities/file-judges.ts) reads the files and asks; only these evaluators' inputs
 * carry `contract` / `comparator`, so every other evaluation schedules what it always did.
 */
import { abnormalExit } from './evaluators/abnormal-exit.js';
import { COMPARISON_ANSWER_SCHEMA, CONTRACT_ANSWER_SCHEMA } from './evaluators/file-judges.js';
import { interpolate, type InterpolationScope } from './interpolate.js';
import { mergedLlm, providerRequest } from './llm-provider.js';
import type { EvaluateConfig, LoopDefinition } from './schema.js';
import type { ActionResult, EvaluateLlmInput } from './types.js';

type FileJudgeConfig = Extract<EvaluateConfig, { type: 'contract' | 'comparator' }>;
type Input = Omit<EvaluateLlmInput, 'instanceId' | 'cwd' | 'state'>;

export function isFileJudge(config: EvaluateConfig): config is FileJudgeConfig {
  return config.type === 'contract' || config.type === 'comparator';
}

/** Renders a templated field; the error names it. */
function rendered(field: string, text: string, scope: InterpolationScope): string {
  try {
    return interpolate(text, scope);
  } catch (err) {
    throw new Error(`${field}: ${(err as Error).message}`);
  }
}

/**
 * The input, or the reason there is no call to make (an `error` verdict): LLM evaluation disabled,
 * an abnormal exit of the action (timed out, not runnable, killed: evaluators/abnormal-exit.ts), or
 * a template that does not render. Like the content evaluators, an ordinary non-zero exit is judged.
 */
export function fileJudgeInput(
  def: LoopDefinition,
  config: FileJudgeConfig,
  output: string,
  action: ActionResult | null,
  fromSource: boolean,
  scope: InterpolationScope,
): { input: Input } | { error: string; details?: Record<string, unknown> } {
  if (!def.llm.enabled)
    return {
      error: `LLM evaluation is disabled (llm.enabled: false or --no-llm); the ${config.type} evaluator needs it`,
    };
  if (!fromSource && action !== null) {
    const abnormal = abnormalExit({
      output,
      exitCode: action.exit_code,
      abnormal: action.timed_out === true || action.signal !== undefined,
    });
    if (abnormal !== undefined)
      return { error: String(abnormal.details.error), details: { exit_code: action.exit_code } };
  }
  const input: Input = {
    output: config.type === 'comparator' ? output : '',
    schema: config.type === 'comparator' ? COMPARISON_ANSWER_SCHEMA : CONTRACT_ANSWER_SCHEMA,
    min_confidence: 0,
    uncertain_suffix: false,
    // The whole evaluation's time: llm.timeout for each of its questions (activities/file-judges.ts).
    timeout_s: def.llm.timeout * (config.type === 'contract' ? config.pairs.length : Math.max(1, config.min_pairs)),
  };
  try {
    if (config.type === 'contract') {
      input.contract = {
        pairs: config.pairs.map((pair, i) => ({
          ...pair,
          producer: rendered(`pairs[${i}].producer`, pair.producer, scope),
          consumer: rendered(`pairs[${i}].consumer`, pair.consumer, scope),
          ...(pair.contract === undefined ? {} : { contract: rendered(`pairs[${i}].contract`, pair.contract, scope) }),
        })),
      };
    } else {
      input.comparator = {
        baseline_path: rendered('baseline_path', config.baseline_path, scope),
        auto_promote: config.auto_promote,
        min_pairs: Math.max(1, config.min_pairs),
      };
      if (config.prompt !== undefined) input.prompt = rendered('prompt', config.prompt, scope);
    }
  } catch (err) {
    return { error: (err as Error).message };
  }
  const provider = providerRequest(def, config);
  if (provider !== undefined && 'invalid' in provider) return { error: `llm: ${provider.invalid}` };
  if (provider !== undefined) input.llm = provider;
  const model = mergedLlm(def, config).model;
  if (model !== undefined) input.model = model;
  return { input };
}

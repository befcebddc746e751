/**
 * The verdicts one state can produce in a run, from its evaluator (explicit or default), its
 * action, or its sub-loop: what validation checks against the state's routes and what
 * `ll-loop simulate` chooses from. Pure.
 */
import { effectiveEvaluator } from './evaluate-state.js';
import { DEFAULT_LLM_SCHEMA } from './llm-schema.js';
import { judgeSchema } from './cannot-judge.js';
import { EVALUATOR_VERDICTS, SUBLOOP_VERDICTS, type VerdictSet } from './evaluators/verdicts.js';
import type { LoopDefinition, StateConfig } from './schema.js';
import { humanVerdicts, isHumanState } from './human.js';

export type { VerdictSet } from './evaluators/verdicts.js';

/** A schema's `verdict` enum, when it declares one (else the verdicts cannot be known). */
function schemaVerdicts(schema: Record<string, unknown>): string[] | undefined {
  const properties = schema.properties as Record<string, unknown> | undefined;
  const verdict = properties?.verdict as { enum?: unknown } | undefined;
  const values = verdict?.enum;
  return Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === 'string')
    ? (values as string[])
    : undefined;
}

/**
 * What the state can answer once its action ran, or undefined when nothing is evaluated
 * (terminal, `next:`) or the answers cannot be known (an LLM schema without a verdict enum).
 */
export function stateVerdicts(def: LoopDefinition, state: StateConfig): VerdictSet | undefined {
  if (state.terminal || state.next !== undefined) return undefined;
  if (state.loop !== undefined) return SUBLOOP_VERDICTS;
  if (isHumanState(state)) return humanVerdicts(state);
  // A join of some successes (`partial`) follows on_no when there is no on_partial route.
  if (state.parallel !== undefined) return SUBLOOP_VERDICTS;
  const config = effectiveEvaluator(def, state);
  // Without an action or a source, exit_code judges exit 0: the answer is always yes.
  if (config.type === 'exit_code' && state.action === undefined && config.source === undefined)
    return { verdicts: ['yes'], pass: 'yes', fail: 'yes' };
  // classify answers whatever word the action prints: its verdicts cannot be known.
  if (config.type === 'classify') return undefined;
  if (config.type !== 'llm_structured') return EVALUATOR_VERDICTS[config.type];
  const declared = schemaVerdicts(judgeSchema(state, config.schema ?? DEFAULT_LLM_SCHEMA));
  if (declared === undefined) return undefined;
  const base = EVALUATOR_VERDICTS.llm_structured;
  const verdicts = config.uncertain_suffix ? declared.flatMap((v) => [v, `${v}_uncertain`]) : declared;
  return {
    verdicts,
    pass: declared.includes(base.pass) ? base.pass : declared[0]!,
    fail: declared.includes(base.fail) ? base.fail : (declared[1] ?? declared[0]!),
  };
}

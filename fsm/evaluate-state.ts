/**
 * Layer 1 for one state: pick the evaluator (explicit or the default for the action kind),
 * resolve its templated fields, and either evaluate purely or describe the LLM call to make.
 */
import { actionKind } from './action.js';
import { evaluatePure, type EvalInput } from './evaluators/index.js';
import { interpolate, type InterpolationScope } from './interpolate.js';
import { DEFAULT_LLM_SCHEMA } from './llm-schema.js';
import { judgeSchema } from './cannot-judge.js';
import { mergedLlm, providerRequest } from './llm-provider.js';
import { fileJudgeInput, isFileJudge } from './file-judges-input.js';
import type { EvaluateConfig, LoopDefinition, StateConfig } from './schema.js';
import type { RunData } from './run/snapshot.js';
import type { ActionResult, EvalResult, EvaluateLlmInput } from './types.js';

export type Evaluation =
  | { kind: 'pure'; type: string; result: EvalResult }
  | { kind: 'llm'; input: Omit<EvaluateLlmInput, 'instanceId' | 'cwd' | 'state'> }
  /** diff_stall: the worker takes the `git diff --stat` snapshot; the core compares it (diff-stall.ts). */
  | { kind: 'diff'; scope: string[] };

/** An `error` verdict carrying the reason in `details.error`. */
export function errorResult(message: string, details: Record<string, unknown> = {}): EvalResult {
  return { verdict: 'error', details: { ...details, error: message } };
}

/** The evaluator a state uses: its own, else mcp_result for MCP tool calls, llm_structured for prompts (when enabled), else exit_code. */
export function effectiveEvaluator(def: LoopDefinition, state: StateConfig): EvaluateConfig {
  if (state.evaluate) return state.evaluate;
  if (state.action !== undefined && actionKind(state) === 'mcp') return { type: 'mcp_result' };
  if (state.action !== undefined && actionKind(state) === 'prompt' && def.llm.enabled) {
    return { type: 'llm_structured', min_confidence: 0.5, uncertain_suffix: false };
  }
  return { type: 'exit_code' };
}

/** The states judged by an LLM (explicitly or by default), with their evaluator settings. */
export function llmJudged(def: LoopDefinition): Array<{ state: string; config: EvaluateConfig }> {
  if (!def.llm.enabled) return [];
  const out: Array<{ state: string; config: EvaluateConfig }> = [];
  for (const [name, state] of Object.entries(def.states)) {
    if (state.terminal || state.next !== undefined || state.loop !== undefined) continue;
    // A contract reads its files: it asks the judge with or without an action.
    if (
      state.action === undefined &&
      state.evaluate?.type !== 'contract' &&
      (state.evaluate === undefined || !('source' in state.evaluate) || state.evaluate.source === undefined)
    )
      continue;
    const config = effectiveEvaluator(def, state);
    if (config.type === 'llm_structured' || isFileJudge(config)) out.push({ state: name, config });
  }
  return out;
}

const TEMPLATED_FIELDS = ['target', 'toward', 'tolerance'] as const;

/** Interpolate templated numeric/target fields; `previous` resolves leniently (missing → none). */
function resolveFields(config: EvaluateConfig, scope: InterpolationScope): EvaluateConfig {
  const out: Record<string, unknown> = { ...config };
  for (const field of TEMPLATED_FIELDS) {
    const value = out[field];
    if (typeof value === 'string') out[field] = interpolate(value, scope);
  }
  if (typeof out.previous === 'string') {
    try {
      out.previous = interpolate(out.previous, scope);
    } catch {
      delete out.previous;
    }
  }
  return out as EvaluateConfig;
}

/** Evaluate the current state's outcome. Never throws: problems become `error` verdicts. */
export function evaluateState(
  def: LoopDefinition,
  state: StateConfig,
  action: ActionResult | null,
  snap: RunData,
  scope: InterpolationScope,
): Evaluation {
  const config = effectiveEvaluator(def, state);
  const type = config.type;
  if (config.type === 'diff_stall') return { kind: 'diff', scope: config.scope ?? [] };
  let source: string | undefined;
  try {
    if ('source' in config && config.source !== undefined) source = interpolate(config.source, scope);
  } catch (err) {
    return { kind: 'pure', type, result: errorResult(`source: ${(err as Error).message}`) };
  }
  // score_stall/open_question_stall without source: judge the history file the worker read after the action.
  const stall = config.type === 'score_stall' || config.type === 'open_question_stall';
  const read = stall && source === undefined ? action?.read_after : undefined;
  if (read !== undefined && 'error' in read)
    return { kind: 'pure', type, result: errorResult(`${type}: ${read.error}`) };
  const output = source ?? (read !== undefined ? read.text : undefined) ?? action?.output ?? '';
  if (isFileJudge(config)) {
    const judged = fileJudgeInput(def, config, output, action, source !== undefined, scope);
    return 'error' in judged
      ? { kind: 'pure', type, result: errorResult(judged.error, judged.details) }
      : { kind: 'llm', input: judged.input };
  }
  if (config.type === 'llm_structured') {
    if (!def.llm.enabled) {
      return {
        kind: 'pure',
        type,
        result: errorResult(
          'LLM evaluation is disabled (llm.enabled: false or --no-llm); use a deterministic evaluator for this state',
        ),
      };
    }
    const input: Omit<EvaluateLlmInput, 'instanceId' | 'cwd' | 'state'> = {
      output,
      schema: judgeSchema(state, config.schema ?? DEFAULT_LLM_SCHEMA),
      min_confidence: config.min_confidence,
      uncertain_suffix: config.uncertain_suffix,
      timeout_s: def.llm.timeout,
    };
    if (config.prompt !== undefined) {
      // The judge's question is a template like the other evaluator fields (validation checks it as one).
      try {
        input.prompt = interpolate(config.prompt, scope);
      } catch (err) {
        return { kind: 'pure', type, result: errorResult(`prompt: ${(err as Error).message}`) };
      }
    }
    const provider = providerRequest(def, config);
    if (provider !== undefined && 'invalid' in provider)
      return { kind: 'pure', type, result: errorResult(`llm: ${provider.invalid}`) };
    // Only API-provider runs carry `llm`: host CLI evaluations schedule the input they always did.
    if (provider !== undefined) input.llm = provider;
    const model = mergedLlm(def, config).model;
    if (model !== undefined) input.model = model;
    return { kind: 'llm', input };
  }
  let resolved: EvaluateConfig;
  try {
    resolved = resolveFields(config, scope);
  } catch (err) {
    return { kind: 'pure', type, result: errorResult(`${type}: ${(err as Error).message}`) };
  }
  const exitCode = source !== undefined ? 0 : (action?.exit_code ?? 0);
  const input: EvalInput = {
    output,
    exitCode: config.type === 'exit_code' && source !== undefined ? parseExit(source) : exitCode,
    abnormal: source === undefined && (action?.timed_out === true || action?.signal !== undefined),
  };
  const last = snap.lastValues[snap.current];
  if (last !== undefined) input.lastValue = last;
  return { kind: 'pure', type, result: evaluatePure(resolved as Parameters<typeof evaluatePure>[0], input) };
}

/** `exit_code` with a `source:` judges the source as an exit code ("0", "1", …). */
function parseExit(text: string): number {
  const n = Number(text.trim());
  return Number.isInteger(n) ? n : 2;
}

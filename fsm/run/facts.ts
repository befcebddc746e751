/**
 * Raw facts the runtime reports, in the words and verdicts the run records: a failure's error
 * chain as one line, why a sub-loop could not run, an LLM's answer judged by the state's settings.
 * The runtime passes facts; the core decides what they mean (and versions that decision).
 */
import { effectiveEvaluator, errorResult } from '../evaluate-state.js';
import { judge } from './llm-judgement.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import type { Failure, InvalidAnswer, LlmReply, RunEvent, SubloopUnavailable } from './snapshot.js';
import type { EvalResult } from '../types.js';

/** An error chain as one line: its first four messages (Temporal wraps activity and child failures). */
export function failureText(failure: Failure): string {
  return failure.messages.slice(0, 4).join(': ') || 'unknown error';
}

/** Why a child could not run, as the state's error says it. */
export function unavailableText(why: SubloopUnavailable): string {
  switch (why.reason) {
    case 'too_deep':
      return `sub-loop "${why.loop}" would nest ${why.depth} loops deep (the limit is ${why.limit}); a templated loop: name is probably calling itself`;
    case 'load_failed':
      return `could not load sub-loop "${why.loop}": ${failureText(why.failure)}`;
    case 'invalid':
      return why.error;
  }
}

/** The fact for the LLM activity's reply. */
export function llmReplyFact(reply: LlmReply, now: number): RunEvent {
  // What the call used goes with the fact (budgets: fsm/run/budget.ts); replies without usage give the fact they always did.
  const usage = reply.usage === undefined ? {} : { usage: reply.usage };
  if ('judgement' in reply) return { type: 'llm_replied', judgement: reply.judgement, ...usage, now };
  if ('result' in reply) return { type: 'llm_done', result: reply.result, ...usage, now };
  if ('invalid' in reply) return { type: 'llm_invalid', invalid: reply.invalid, ...usage, now };
  if ('rate_limit' in reply) return { type: 'llm_rate_limited', rate_limit: reply.rate_limit, now };
  // `details` only in replies of API providers (0.5.0): older histories give the event they always did.
  return reply.details === undefined
    ? { type: 'llm_error', error: reply.error, ...usage, now }
    : { type: 'llm_error', error: reply.error, details: reply.details, ...usage, now };
}

/** The `error` verdict for an answer still missing its schema after `asks` asks; `details.errors` lists how. */
export function invalidAnswerResult(invalid: InvalidAnswer, asks: number): EvalResult {
  const first = invalid.errors[0] ?? 'it does not match';
  const more = invalid.errors.length > 1 ? ` (and ${invalid.errors.length - 1} more)` : '';
  return errorResult(
    `LLM answer does not match the evaluator's schema after ${asks} ${asks === 1 ? 'ask' : 'asks'}: ${first}${more}`,
    {
      errors: invalid.errors,
      answer: invalid.answer,
    },
  );
}

/** An LLM answer (or its absence), judged by the current state's evaluator settings. */
export function llmResult(
  def: LoopDefinition,
  state: StateConfig,
  event: Extract<RunEvent, { type: 'llm_replied' | 'llm_error' | 'llm_failed' | 'llm_done' }>,
): EvalResult {
  switch (event.type) {
    case 'llm_done':
      return event.result;
    case 'llm_error':
      return errorResult(event.error, event.details);
    case 'llm_failed':
      return errorResult(`LLM evaluation failed: ${failureText(event.failure)}`);
    case 'llm_replied': {
      const config = effectiveEvaluator(def, state);
      const minConfidence = config.type === 'llm_structured' ? config.min_confidence : 0.5;
      const suffix = config.type === 'llm_structured' ? config.uncertain_suffix : false;
      return judge(event.judgement, minConfidence, suffix);
    }
  }
}

/** The evaluator an LLM evaluation reports in its `evaluate` event: `contract`, `comparator`, else `llm_structured`. */
export function llmEvaluatorType(def: LoopDefinition, state: StateConfig): string {
  const type = effectiveEvaluator(def, state).type;
  return type === 'contract' || type === 'comparator' ? type : 'llm_structured';
}

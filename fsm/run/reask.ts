/**
 * Answers and outputs that miss their schema (seed 004): asked again with the errors appended,
 * up to `llm.schema_retries` times, the count kept in `snapshot.schemaAsks`; then judged `error`.
 */
import { evaluateState, errorResult } from '../evaluate-state.js';
import { invalidAnswerResult } from './facts.js';
import { emit, endAsks, scopeOf, setEffect, stateOf, type Draft } from './draft.js';
import type { StateConfig } from '../schema.js';
import { DEFAULT_SCHEMA_RETRIES } from '../schema-constants.js';
import type { InvalidAnswer } from './snapshot.js';
import type { ActionResult } from '../types.js';
import { actionKind } from '../action.js';
import { afterEvaluation, budgetSpent, failState, runAction } from './steps.js';
import { cannotCover } from './budget.js';
import { sharedBudgetHit } from './shared-budget.js';

/**
 * An output that missed the state's `output_schema:` (only definitions that have one get a check):
 * a prompt is asked again with the errors appended, up to `llm.schema_retries` times; then — and
 * at once for a shell command, which would print the same again — the state's verdict is `error`
 * with the errors in `details.errors`.
 */
export function onInvalidOutput(d: Draft, state: StateConfig, result: ActionResult, errors: string[]): void {
  const asked = d.snap.schemaAsks ?? 0;
  const retries = d.def.llm.schema_retries ?? DEFAULT_SCHEMA_RETRIES;
  if (actionKind(state) === 'prompt' && state.action !== undefined && asked < retries) {
    d.snap.schemaAsks = asked + 1;
    d.snap.reaskErrors = errors;
    emit(d, 'output_reask', { state: d.snap.current, ask: asked + 2, asks: retries + 1, errors });
    return runAction(d, state, state.action, errors);
  }
  endAsks(d);
  const asks = actionKind(state) === 'prompt' ? ` after ${asked + 1} ${asked === 0 ? 'ask' : 'asks'}` : '';
  const message = `output does not match output_schema${asks}: ${errors[0] ?? 'it does not match'}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
  if (state.next !== undefined) return failState(d, state, message, result);
  afterEvaluation(d, state, 'output_schema', errorResult(message, { errors }), result);
}

/**
 * An answer that missed its schema (only runs that check answers get one): ask the same question
 * again with the errors appended, up to `llm.schema_retries` times (each ask its own activity, the
 * count in the snapshot), then judge `error` with the errors in `details.errors`.
 */
export function onInvalidAnswer(d: Draft, invalid: InvalidAnswer): void {
  const state = stateOf(d);
  const action = d.snap.pending;
  const asked = d.snap.schemaAsks ?? 0;
  // Definitions loaded before schema_retries existed carry no value; they get the default.
  const retries = d.def.llm.schema_retries ?? DEFAULT_SCHEMA_RETRIES;
  if (asked < retries) {
    const evaluation = evaluateState(d.def, state, action, d.snap, scopeOf(d.def, d.snap, d.now));
    if (evaluation.kind === 'llm') {
      const short =
        sharedBudgetHit(d.snap) ?? cannotCover(d.def, d.snap, d.snap.current, evaluation.input.llm?.max_tokens);
      if (short !== undefined) return budgetSpent(d, state, short, action);
      d.snap.schemaAsks = asked + 1;
      d.snap.reaskErrors = invalid.errors;
      emit(d, 'llm_reask', { state: d.snap.current, ask: asked + 2, asks: retries + 1, errors: invalid.errors });
      setEffect(d, {
        type: 'evaluate_llm',
        input: { ...evaluation.input, state: d.snap.current, schema_errors: invalid.errors },
      });
      return;
    }
  }
  d.snap.pending = null;
  endAsks(d);
  afterEvaluation(d, state, 'llm_structured', invalidAnswerResult(invalid, asked + 1), action);
}

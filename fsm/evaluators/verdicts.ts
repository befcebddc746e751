/**
 * What each evaluator can answer, declared next to the evaluators: the verdicts it produces, and
 * which of them mean "the check passed" and "the check failed" (`ll-loop simulate` picks those).
 * Every evaluator can also answer `error` (bad output, abnormal exit); an unrouted `error` ends
 * the run with that error by design, so it is not listed here.
 */
import type { EvaluatorType } from '../schema.js';

export interface VerdictSet {
  /** Every verdict other than `error` the evaluator can produce. */
  readonly verdicts: readonly string[];
  /** The verdict of a passing check. */
  readonly pass: string;
  /** The verdict of a failing check. */
  readonly fail: string;
}

const YES_NO: VerdictSet = { verdicts: ['yes', 'no'], pass: 'yes', fail: 'no' };

/** The registry: one entry per evaluator type (`llm_structured` with the default schema). */
export const EVALUATOR_VERDICTS: { readonly [K in EvaluatorType]: VerdictSet } = {
  exit_code: YES_NO,
  output_numeric: YES_NO,
  output_json: YES_NO,
  output_contains: YES_NO,
  harbor_scorer: YES_NO,
  // `no` once max_stall passes in a row changed nothing; the first snapshot is always `yes`.
  diff_stall: YES_NO,
  // The only built-in evaluator whose pass is `success` (seed 001): on_yes/on_no match nothing.
  mcp_result: { verdicts: ['success', 'tool_error', 'not_found', 'timeout'], pass: 'success', fail: 'tool_error' },
  // A failing check is one not at the target yet: `progress`. `stall` needs an earlier
  // measurement (a first one never stalls), so a simulation that failed with it would show a
  // path no run can take.
  convergence: { verdicts: ['target', 'progress', 'stall'], pass: 'target', fail: 'progress' },
  // The default schema's enum (fsm/llm-schema.ts); a custom schema declares its own.
  llm_structured: { verdicts: ['yes', 'no', 'blocked', 'partial'], pass: 'yes', fail: 'no' },
  // `no` once the score stopped improving for max_stall rounds.
  score_stall: YES_NO,
  // `no` once the count of open questions stopped falling for max_stall rounds.
  open_question_stall: YES_NO,
  // `no` once the tracked values repeated max_repeat evaluations in a row.
  action_stall: YES_NO,
  // The words the action prints; stateVerdicts reads them from the state's routes.
  classify: { verdicts: [], pass: '', fail: '' },
  // `yes` only when every producer/consumer pair is aligned.
  contract: YES_NO,
  // `no_baseline` while there is no baseline (without auto_promote); `tie` when both passed as often.
  comparator: { verdicts: ['yes', 'no', 'tie', 'no_baseline'], pass: 'yes', fail: 'no' },
};

/** A sub-loop state's verdicts: the child ended in a success terminal (yes) or did not (no). */
export const SUBLOOP_VERDICTS: VerdictSet = YES_NO;

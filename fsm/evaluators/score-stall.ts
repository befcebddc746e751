/**
 * `score_stall` (little-loops): has a score stopped improving? The input is a score history, one
 * number a line, oldest first (the state's `source:`, or its action's output). Each round that
 * does not beat the best earlier score by at least `epsilon` is a stalled round; `no` once the
 * last `max_stall` rounds all stalled, else `yes` (keep going). Details
 * `{ rounds, best, latest, stall_count, max_stall, epsilon }`.
 *
 * `open_question_stall` (little-loops) is the same over a count of open questions, where lower is
 * better: a round that does not bring the count more than `epsilon` (default 0) below the lowest
 * earlier count is stalled.
 */
import type { EvalResult } from '../types.js';
import { evalError, quote } from './error-result.js';
import type { EvalInput } from './eval-input.js';
import type { ScoreStallConfig } from './pure-config.js';

export function evaluateScoreStall(config: ScoreStallConfig, input: EvalInput): EvalResult {
  const lower = config.type === 'open_question_stall';
  const epsilon = config.epsilon ?? (lower ? 0 : 0.5);
  const maxStall = config.max_stall ?? 1;
  const scores: number[] = [];
  for (const line of input.output.split('\n')) {
    const text = line.trim();
    if (text === '') continue;
    const value = Number(text);
    if (!Number.isFinite(value))
      return evalError(`${config.type}: ${quote(text)} is not a ${lower ? 'count' : 'score'} (one number a line)`);
    scores.push(value);
  }
  let best: number | undefined;
  let stall = 0;
  for (const score of scores) {
    const progress = best === undefined || (lower ? best - score > epsilon : score - best >= epsilon);
    stall = progress ? 0 : stall + 1;
    if (best === undefined || (lower ? score < best : score > best)) best = score;
  }
  const details = {
    rounds: scores.length,
    best: best ?? null,
    latest: scores[scores.length - 1] ?? null,
    stall_count: stall,
    max_stall: maxStall,
    epsilon,
  };
  return { verdict: stall >= maxStall ? 'no' : 'yes', details };
}

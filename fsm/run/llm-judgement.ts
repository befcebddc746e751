/**
 * An LLM's answer, judged: the activity only reads the answer (`readJudgement`); the core decides
 * what it means for routing — the confidence gate and the `_uncertain` suffix (`judge`).
 */
import type { Judgement } from './snapshot.js';
import type { EvalResult } from '../types.js';

/** The judgement in an answer object; throws a descriptive Error when it has no verdict. */
export function readJudgement(j: Record<string, unknown>): Judgement {
  const verdict = j['verdict'];
  if (typeof verdict !== 'string' || verdict === '') throw new Error('LLM judgement has no string "verdict"');
  const c = j['confidence'];
  const parsed = typeof c === 'number' ? c : typeof c === 'string' && c.trim() !== '' ? Number(c) : NaN;
  // An answer without a usable confidence is taken as certain (seed 001: confidence is optional).
  const confidence = Number.isFinite(parsed) ? parsed : 1.0;
  const reason = typeof j['reason'] === 'string' ? j['reason'] : '';
  return { verdict, confidence, reason, raw: j };
}

/** The evaluator's result: below `minConfidence` the answer is not confident, and with `uncertainSuffix` routes `<verdict>_uncertain`. */
export function judge(j: Judgement, minConfidence: number, uncertainSuffix: boolean): EvalResult {
  const confident = j.confidence >= minConfidence;
  return {
    verdict: uncertainSuffix && !confident ? `${j.verdict}_uncertain` : j.verdict,
    details: { confidence: j.confidence, confident, reason: j.reason, raw: j.raw },
  };
}

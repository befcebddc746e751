/**
 * `harbor_scorer`: a Harbor benchmark scorer prints a bare float and exits 0.
 * Exit 0 with a number → yes; any other ordinary non-zero exit → no; exit 0 without a number → error.
 */
import type { EvalResult } from '../types.js';
import { abnormalExit } from './abnormal-exit.js';
import { evalError } from './error-result.js';
import type { EvalInput } from './eval-input.js';
import { parseNumericOutput } from './numbers.js';
import type { HarborScorerConfig } from './pure-config.js';

/** details `{ score, exit_code: 0 }` on yes, `{ exit_code }` on no. */
export function evaluateHarborScorer(_config: HarborScorerConfig, input: EvalInput): EvalResult {
  const abnormal = abnormalExit(input);
  if (abnormal) return abnormal;
  if (input.exitCode !== 0) return { verdict: 'no', details: { exit_code: input.exitCode } };
  const parsed = parseNumericOutput(input.output);
  if (!parsed.ok) return evalError(`scorer printed no score: ${parsed.error}`, { exit_code: 0 });
  return { verdict: 'yes', details: { score: parsed.value, exit_code: 0 } };
}

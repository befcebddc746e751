/**
 * `output_numeric`: reads a number from the output and compares it, `value OP target`.
 */
import type { EvalResult } from '../types.js';
import { abnormalExit } from './abnormal-exit.js';
import { compareNumbers, resolveOperator, unknownOperatorMessage } from './compare.js';
import { evalError } from './error-result.js';
import type { EvalInput } from './eval-input.js';
import { parseNumericOutput, toNumber } from './numbers.js';
import type { OutputNumericConfig } from './pure-config.js';

/** yes/no from the comparison; details `{ value, target, operator }`. */
export function evaluateOutputNumeric(config: OutputNumericConfig, input: EvalInput): EvalResult {
  const abnormal = abnormalExit(input);
  if (abnormal) return abnormal;
  const operator = resolveOperator(config.operator);
  const shown = { target: config.target, operator: config.operator ?? 'eq' };
  if (operator === undefined) return evalError(unknownOperatorMessage(config.operator), shown);
  const target = toNumber(config.target);
  if (target === undefined) {
    return evalError(`target ${JSON.stringify(config.target)} is not a number`, shown);
  }
  const parsed = parseNumericOutput(input.output);
  if (!parsed.ok) return evalError(parsed.error, { target, operator });
  const details = { value: parsed.value, target, operator };
  return { verdict: compareNumbers(parsed.value, operator, target) ? 'yes' : 'no', details };
}

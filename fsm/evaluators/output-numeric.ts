/**
 * `output_numeric`: reads a number from the output and compares it, `value OP target`. With `key`,
 * the number is the value of the output's last `<key>=<number>` field (`pass_rate=0.93`), as in
 * little-loops.
 */
import type { EvalResult } from '../types.js';
import { abnormalExit } from './abnormal-exit.js';
import { compareNumbers, resolveOperator, unknownOperatorMessage } from './compare.js';
import { evalError } from './error-result.js';
import type { EvalInput } from './eval-input.js';
import { parseNumericOutput, toNumber, type NumericParse } from './numbers.js';
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
  const parsed = config.key === undefined ? parseNumericOutput(input.output) : keyedNumber(input.output, config.key);
  if (!parsed.ok) return evalError(parsed.error, { target, operator });
  const details = { value: parsed.value, target, operator };
  return { verdict: compareNumbers(parsed.value, operator, target) ? 'yes' : 'no', details };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The value of the last `<key>=<number>` field of the output (spaces around `=` allowed). */
function keyedNumber(output: string, key: string): NumericParse {
  const field = new RegExp(`${escapeRegExp(key)}\\s*=\\s*([-+]?\\d*\\.?\\d+(?:[eE][-+]?\\d+)?)`, 'g');
  const last = [...output.matchAll(field)].at(-1)?.[1];
  const value = last === undefined ? undefined : toNumber(last);
  if (value === undefined) return { ok: false, error: `no ${key}=<number> field in the output` };
  return { ok: true, value };
}

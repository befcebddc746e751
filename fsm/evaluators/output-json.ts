/**
 * `output_json`: parses the output as JSON, looks a jq-style path up and compares the value.
 *
 * Without a target the verdict is the value's truthiness. A missing value is `no` for every
 * comparison except `ne` (and for truthiness). eq/ne compare JSON values structurally, a number and a
 * numeric string numerically; lt/le/gt/ge need both sides numeric.
 */
import type { EvalResult } from '../types.js';
import { abnormalExit } from './abnormal-exit.js';
import { compareNumbers, resolveOperator, unknownOperatorMessage } from './compare.js';
import { errorMessage, evalError, quote } from './error-result.js';
import type { EvalInput } from './eval-input.js';
import { jsonType, parseJsonPath, resolveJsonPath } from './json-path.js';
import { isTruthy, looseJsonEqual } from './json-values.js';
import { toNumber } from './numbers.js';
import type { OutputJsonConfig } from './pure-config.js';

/** yes/no; details `{ value, path, target, operator }`, plus `missing: true` when nothing is at `path`. */
export function evaluateOutputJson(config: OutputJsonConfig, input: EvalInput): EvalResult {
  const abnormal = abnormalExit(input);
  if (abnormal) return abnormal;
  const hasTarget = config.target !== undefined;
  const shown = { path: config.path, target: hasTarget ? config.target : null, operator: config.operator ?? 'eq' };
  const operator = resolveOperator(config.operator);
  if (operator === undefined) return evalError(unknownOperatorMessage(config.operator), shown);
  const path = parseJsonPath(config.path);
  if (!path.ok) return evalError(path.error, shown);

  const text = input.output.trim();
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (thrown) {
    const seen = text === '' ? 'the output is empty' : quote(text);
    return evalError(`output is not valid JSON (${errorMessage(thrown)}): ${seen}`, shown);
  }

  const lookup = resolveJsonPath(document, path.segments);
  if (lookup.kind === 'error') return evalError(lookup.error, shown);
  if (lookup.kind === 'missing') {
    const verdict = hasTarget && operator === 'ne' ? 'yes' : 'no';
    return { verdict, details: { value: null, missing: true, ...shown } };
  }

  const { value } = lookup;
  const details = { value, ...shown };
  if (!hasTarget) return { verdict: isTruthy(value) ? 'yes' : 'no', details };
  if (operator === 'eq' || operator === 'ne') {
    const equal = looseJsonEqual(value, config.target);
    return { verdict: equal === (operator === 'eq') ? 'yes' : 'no', details };
  }
  const left = toNumber(value);
  const right = toNumber(config.target);
  if (left === undefined) {
    return evalError(
      `operator ${operator} needs a number, but the value at ${config.path} is ${describe(value)}`,
      details,
    );
  }
  if (right === undefined) {
    return evalError(`operator ${operator} needs a number, but the target is ${describe(config.target)}`, details);
  }
  return { verdict: compareNumbers(left, operator, right) ? 'yes' : 'no', details };
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return `${jsonType(value)} ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`;
}

/**
 * `output_contains`: looks for a pattern in the output. The pattern is a JS regular expression (no
 * flags) when it compiles, a plain substring otherwise.
 */
import type { EvalResult } from '../types.js';
import { abnormalExit } from './abnormal-exit.js';
import { evalError, quote } from './error-result.js';
import type { EvalInput } from './eval-input.js';
import type { OutputContainsConfig } from './pure-config.js';

/**
 * yes when found (when not found with `negate`), else no; details `{ matched, pattern, negate }`.
 * Not found, an `error_patterns` substring in the output makes it `error` (little-loops' way to send
 * an auth failure or the like to `on_error`).
 */
export function evaluateOutputContains(config: OutputContainsConfig, input: EvalInput): EvalResult {
  const abnormal = abnormalExit(input);
  if (abnormal) return abnormal;
  const negate = config.negate ?? false;
  const matched = containsPattern(input.output, config.pattern);
  const details = { matched, pattern: config.pattern, negate };
  if (!matched && !negate) {
    const errorPattern = config.error_patterns?.find((p) => input.output.includes(p));
    if (errorPattern !== undefined) {
      return evalError(`the output contains the error pattern ${quote(errorPattern)}`, {
        ...details,
        error_pattern: errorPattern,
      });
    }
  }
  return { verdict: matched !== negate ? 'yes' : 'no', details };
}

/** True when `text` matches `pattern` as a regex, or contains it literally if it is not a valid regex. */
function containsPattern(text: string, pattern: string): boolean {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch {
    return text.includes(pattern);
  }
  return regex.test(text);
}

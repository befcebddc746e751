/**
 * `classify` (little-loops): the verdict is a word the action printed, so a shell state can
 * choose the route itself, e.g. a policy command that prints `RUN_CHILD` or `FINISH` and a
 * `route:` table keyed by those words. The line read is `line:` (`last`, the default, `first`,
 * or an index counted from 0, negative from the end) of the output's non-empty lines; its first
 * word is the verdict.
 */
import type { EvalResult } from '../types.js';
import { abnormalExit } from './abnormal-exit.js';
import { evalError, quote } from './error-result.js';
import type { EvalInput } from './eval-input.js';
import type { ClassifyConfig } from './pure-config.js';

/** A verdict is a route key: letters, digits, `_` and `-`. */
const VERDICT = /^[A-Za-z0-9_-]+$/;

export function evaluateClassify(config: ClassifyConfig, input: EvalInput): EvalResult {
  const abnormal = abnormalExit(input);
  if (abnormal) return abnormal;
  const lines = input.output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const which = config.line ?? 'last';
  const index = which === 'last' ? lines.length - 1 : which === 'first' ? 0 : which < 0 ? lines.length + which : which;
  const line = lines[index];
  if (line === undefined) {
    return evalError(
      lines.length === 0
        ? 'classify: the output is empty; the action must print the verdict (e.g. FINISH)'
        : `classify: line ${String(which)} does not exist (the output has ${lines.length} non-empty lines)`,
      { line: which },
    );
  }
  const word = line.split(/\s+/)[0]!;
  if (!VERDICT.test(word)) {
    return evalError(`classify: ${quote(word)} is not a verdict (letters, digits, _ or -)`, {
      line: which,
      text: line,
    });
  }
  return { verdict: word, details: { line: which, text: line } };
}

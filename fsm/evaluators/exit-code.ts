/**
 * `exit_code`: the verdict is the action's exit status. 0 → yes, 1 → no, anything else → error
 * (2+, timeouts, signals, negative or non-integer codes).
 */
import type { EvalResult } from '../types.js';
import type { EvalInput } from './eval-input.js';
import type { ExitCodeConfig } from './pure-config.js';

/** Judges the exit code; details `{ exit_code }`. */
export function evaluateExitCode(_config: ExitCodeConfig, input: EvalInput): EvalResult {
  const verdict = input.exitCode === 0 ? 'yes' : input.exitCode === 1 ? 'no' : 'error';
  return { verdict, details: { exit_code: input.exitCode } };
}

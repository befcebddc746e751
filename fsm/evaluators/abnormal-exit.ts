/**
 * Exits after which the output is not worth judging: content evaluators answer `error` for them
 * whatever the output says.
 */
import type { EvalResult } from '../types.js';
import { evalError } from './error-result.js';
import type { EvalInput } from './eval-input.js';

/** Why the action's output cannot be judged, or undefined when it can. */
function abnormalExitReason(input: Pick<EvalInput, 'exitCode' | 'abnormal'>): string | undefined {
  const { exitCode, abnormal } = input;
  if (exitCode === 124) return 'the action timed out (exit 124)';
  if (exitCode === 126) return 'the action command is not executable (exit 126)';
  if (exitCode === 127) return 'the action command was not found (exit 127)';
  if (!abnormal) return undefined;
  return exitCode > 128
    ? `the action was killed by signal ${exitCode - 128} (exit ${exitCode})`
    : `the action was killed by a signal (exit ${exitCode})`;
}

/** The `error` result for an abnormal exit, or undefined when the output can be judged. */
export function abnormalExit(input: EvalInput): EvalResult | undefined {
  const reason = abnormalExitReason(input);
  return reason === undefined ? undefined : evalError(reason, { exit_code: input.exitCode });
}

/**
 * `convergence`: compares a measurement with the target and with the previous measurement.
 *
 * `target` when the target is reached within tolerance (going past it counts), else `progress` when
 * the value moved toward it since the previous measurement or there is no previous one, else `stall`.
 */
import type { EvalResult } from '../types.js';
import { abnormalExit } from './abnormal-exit.js';
import { evalError } from './error-result.js';
import type { EvalInput } from './eval-input.js';
import { parseNumericOutput, toNumber } from './numbers.js';
import type { ConvergenceConfig } from './pure-config.js';

/** target/progress/stall; details `{ current, previous, target, tolerance, direction, delta }`. */
export function evaluateConvergence(config: ConvergenceConfig, input: EvalInput): EvalResult {
  const abnormal = abnormalExit(input);
  if (abnormal) return abnormal;
  const direction = config.direction ?? 'minimize';
  if (direction !== 'minimize' && direction !== 'maximize') {
    return evalError(`unknown direction ${JSON.stringify(direction)}: use minimize or maximize`);
  }
  const rawTarget = config.target ?? config.toward;
  if (rawTarget === undefined) return evalError('convergence needs target (or toward)', { direction });
  const target = toNumber(rawTarget);
  if (target === undefined) return evalError(`target ${JSON.stringify(rawTarget)} is not a number`, { direction });
  const rawTolerance = config.tolerance ?? 0;
  const tolerance = toNumber(rawTolerance);
  if (tolerance === undefined || tolerance < 0) {
    return evalError(`tolerance ${JSON.stringify(rawTolerance)} is not a non-negative number`, { target, direction });
  }

  const parsed = parseNumericOutput(input.output);
  if (!parsed.ok) return evalError(parsed.error, { target, tolerance, direction });
  const current = parsed.value;
  const previous = previousValue(config.previous, input.lastValue);
  const details = {
    current,
    previous: previous ?? null,
    target,
    tolerance,
    direction,
    delta: previous === undefined ? null : current - previous,
  };

  const reached = direction === 'minimize' ? current <= target + tolerance : current >= target - tolerance;
  if (reached) return { verdict: 'target', details };
  if (previous === undefined) return { verdict: 'progress', details };
  const improved = direction === 'minimize' ? current < previous : current > previous;
  return { verdict: improved ? 'progress' : 'stall', details };
}

/** `previous:` when it holds a number (read like output), else the state's last measurement. */
function previousValue(configured: string | number | undefined, lastValue: number | undefined): number | undefined {
  if (typeof configured === 'number' && Number.isFinite(configured)) return configured;
  if (typeof configured === 'string' && configured.trim() !== '') {
    const parsed = parseNumericOutput(configured);
    if (parsed.ok) return parsed.value;
  }
  return lastValue !== undefined && Number.isFinite(lastValue) ? lastValue : undefined;
}

/**
 * What a deterministic evaluator sees, and the shape every evaluator has.
 */
import type { EvalResult } from '../types.js';

/** What an evaluator sees. Numeric config fields arrive already interpolated (strings or numbers). */
export interface EvalInput {
  /** The text under evaluation: stdout of the action, or the interpolated `source:`. */
  output: string;
  /** Exit code of the action (0 when the state has no action or when `source:` is used). */
  exitCode: number;
  /** True when the action was killed by a signal or timed out; exitCode is then 124 or 128+n. */
  abnormal: boolean;
  /** Convergence only: the value this state measured last time (undefined on the first measurement). */
  lastValue?: number;
}

/** A pure evaluator: same config and input, same result; never throws. */
export type Evaluator<C> = (config: C, input: EvalInput) => EvalResult;

/**
 * `diff_stall`: is a loop spinning without changing files? Compares this pass's `git diff --stat`
 * of the state's `scope:` with the one recorded at the state's previous evaluation.
 *
 * The worker takes the snapshot (an activity: it runs git); this file only compares, so the same
 * two snapshots always give the same verdict. The memory lives in the run's snapshot
 * (`RunData.diffStats`), so it survives continue-as-new and `resume`.
 */
import type { EvalResult } from '../types.js';

/** What a diff_stall state remembers between its evaluations. */
export interface DiffStallMemory {
  /** The last `git diff --stat` output seen by this state. */
  stat: string;
  /** Consecutive evaluations in which the diff did not change. */
  stall_count: number;
}

/** The seed's default: the first unchanged pass already stalls. */
export const DEFAULT_MAX_STALL = 1;

/**
 * `yes` on the first snapshot, when the diff changed, or while fewer than `maxStall` consecutive
 * passes left it unchanged; `no` once `maxStall` passes in a row changed nothing.
 * Details `{ stall_count, max_stall, diff_changed }` (seed 001).
 */
export function compareDiffStall(
  maxStall: number,
  previous: DiffStallMemory | undefined,
  stat: string,
): { result: EvalResult; memory: DiffStallMemory } {
  const changed = previous === undefined || previous.stat !== stat;
  const stallCount = changed ? 0 : previous.stall_count + 1;
  const verdict = !changed && stallCount >= maxStall ? 'no' : 'yes';
  return {
    result: { verdict, details: { stall_count: stallCount, max_stall: maxStall, diff_changed: changed } },
    memory: { stat, stall_count: stallCount },
  };
}

/**
 * A fan-out's ended items carried into the next run of a continue-as-new, in one payload that
 * Temporal caps at 2 MB. A child run's id is `<run>.<state>.<step>.<index>`, ~60 of an item's
 * ~290 bytes, so the carry names the common prefix once (`prefix`) and each id by what follows it:
 * 10,000 child runs' results came to 2.2 MB whole. Each item's `item` and `loop` are left out too:
 * the request has them. A carry without `prefix` (older runs) is whole.
 */
import type { ParallelItemResult } from '../fsm/types.js';
import type { FanoutProgress } from './definitions.js';

/** The carry of `results`, each child run's id relative to `prefix`. */
export function carryOf(state: string, step: number, prefix: string, results: ParallelItemResult[]): FanoutProgress {
  return {
    state,
    step,
    prefix,
    // Without `item` and `loop`: runFanout takes both from the request again (by index).
    results: results.map(
      ({ item: _item, loop: _loop, ...r }) =>
        (r.run_id?.startsWith(prefix) ? { ...r, run_id: r.run_id.slice(prefix.length) } : r) as ParallelItemResult,
    ),
  };
}

/** The results a carry holds, each child run's id whole again. */
export function carriedResults(progress: FanoutProgress): ParallelItemResult[] {
  const { prefix } = progress;
  if (prefix === undefined) return progress.results;
  return progress.results.map((r) => (r.run_id === undefined ? r : { ...r, run_id: `${prefix}${r.run_id}` }));
}

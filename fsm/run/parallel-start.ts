/**
 * A parallel state starts (fsm/run/parallel.ts has the whole story): its items resolved, the
 * `fanout_start` event, the `run_parallel` effect. Imports nothing of the steps, which call it.
 */
import type { StateConfig } from '../schema.js';
import { childBudget } from './budget.js';
import { emit, messageOf, scopeOf, setEffect, type Draft } from './draft.js';
import { parallelItems } from './parallel-items.js';

/**
 * Start the current parallel state: resolve its items and ask for them to run. With no items the
 * runtime joins at once (an empty join: `yes`, count 0). Returns why the items cannot be resolved.
 */
export function startParallel(d: Draft, state: StateConfig): string | undefined {
  const parallel = state.parallel!;
  const { snap } = d;
  let items;
  try {
    items = parallelItems(parallel, scopeOf(d.def, snap, d.now));
  } catch (err) {
    return messageOf(err);
  }
  emit(d, 'fanout_start', {
    state: snap.current,
    count: items.length,
    max_workers: parallel.max_workers,
    fail_mode: parallel.fail_mode,
    ...(parallel.branches === undefined && items[0] !== undefined ? { loop: items[0].loop } : {}),
  });
  const budget = childBudget(d.def, snap, snap.current);
  snap.phase = 'parallel';
  setEffect(d, {
    type: 'run_parallel',
    input: {
      state: snap.current,
      step: snap.steps,
      items,
      max_workers: parallel.max_workers,
      fail_mode: parallel.fail_mode,
      isolation: parallel.isolation,
      ...(state.timeout === undefined ? {} : { timeout_s: state.timeout }),
      ...(budget === undefined ? {} : { budget }),
    },
  });
  return undefined;
}

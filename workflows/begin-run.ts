/**
 * A run's first transition: a sub-loop that cannot start, a run continuing an earlier one
 * (`ll-loop resume`), a sub-loop with what its parent bound, or a fresh run.
 */
import { upgradeSnapshot } from '../fsm/run/snapshot-upgrade.js';
import type { Snapshot, Transition } from '../fsm/run/snapshot.js';
import type { childStart } from '../fsm/run/subloop.js';
import { transition } from '../fsm/run/transition.js';
import type { LoopDefinition } from '../fsm/schema.js';
import type { LoopWorkflowInput } from './definitions.js';

/** The run's first transition: as a sub-loop that cannot start, continuing an earlier run, or fresh. */
export function begin(
  def: LoopDefinition,
  input: LoopWorkflowInput,
  child: ReturnType<typeof childStart> | undefined,
  now: number,
): Transition {
  const start = { type: 'start', now } as const;
  if (child && 'error' in child) return transition(def, null, { ...start, error: child.error });
  const from = input.continueFrom;
  if (from) {
    const snapshot = withDataContext(upgradeSnapshot(from.snapshot), input.dataContext);
    return transition(def, null, {
      ...start,
      resumeFrom: {
        runId: from.runId,
        snapshot,
        ...(from.upgrade ? { upgrade: from.upgrade } : {}),
        ...(from.fork ? { fork: from.fork } : {}),
      },
    });
  }
  if (child)
    return transition(def, null, {
      ...start,
      inherited: {
        captured: child.captured,
        dataContext: child.dataContext,
        ...(child.budget ? { budget: child.budget } : {}),
      },
    });
  // `--context` values are data (input.dataContext, absent in runs of older releases).
  return transition(def, null, {
    ...start,
    ...(input.dataContext?.length ? { inherited: { dataContext: input.dataContext } } : {}),
  });
}

/** The snapshot with `keys` added to its data context keys (unchanged when there are none). */
function withDataContext(snapshot: Snapshot, keys: string[] | undefined): Snapshot {
  if (!keys?.length) return snapshot;
  return { ...snapshot, dataContext: [...new Set([...(snapshot.dataContext ?? []), ...keys])] };
}

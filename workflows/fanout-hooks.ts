/**
 * How a fan-out (workflows/run-fanout.ts) reports to its run: each ended item as an `item_done`
 * event numbered in the run's stream (fsm/run/parallel.ts noteItemDone), its live counts for the
 * status query, and continue-as-new with the ended items' results when the history is long.
 */
import { noteItemDone } from '../fsm/run/parallel.js';
import type { RunStreamEvent } from '../fsm/run/events.js';
import type { Transition } from '../fsm/run/snapshot.js';
import type { FanoutProgress, FanoutStatus, LoopWorkflowInput } from './definitions.js';
import { historyFull } from './history-limits.js';
import type { FanoutHooks } from './run-fanout.js';

export interface FanoutRun {
  input: LoopWorkflowInput;
  at: () => Transition;
  setAt: (next: Transition) => void;
  emit: (event: RunStreamEvent) => void;
  status: (status: FanoutStatus | undefined) => void;
  continueAsNew: (progress: FanoutProgress) => Promise<never>;
}

export function fanoutHooks(run: FanoutRun): { resumed: () => FanoutProgress | undefined } & FanoutHooks {
  // What ended before this run continued as new, or in the stopped run it resumes: used by the
  // first fan-out only.
  let resumed = run.input.resume?.fanout ?? resumedFanout(run);
  return {
    resumed: () => {
      const progress = resumed;
      resumed = undefined;
      return progress;
    },
    itemDone: (result, now = Date.now()) => {
      const at = run.at();
      if (at.snapshot.status !== 'running') return;
      const noted = noteItemDone(at.snapshot, result, now);
      run.setAt({ ...at, snapshot: noted.snapshot } as Transition);
      run.emit(noted.event);
    },
    status: run.status,
    historyFull: () => historyFull(run.input),
    continueAsNew: run.continueAsNew,
  };
}

/**
 * The items that had ended in the run `ll-loop resume` continues: the resumed run re-enters the
 * parallel state it stopped in at once, so they are for that fan-out (its state, this run's step).
 */
function resumedFanout(run: FanoutRun): FanoutProgress | undefined {
  const carried = run.input.continueFrom?.fanout;
  const effect = run.at().effect;
  if (carried === undefined || effect.type !== 'run_parallel' || effect.input.state !== carried.state) return undefined;
  return { ...carried, step: effect.input.step };
}

/**
 * The loop workflow's side of pause, unpause and steer: it validates each update with the core
 * (fsm/run/control.ts), applies the accepted fact to the snapshot and delivers its events (the
 * `steering` run rule, set by every release served: workflows/run-rules.ts).
 *
 * While quick actions run back to back (a burst, with the `controlsAfterBursts` rule) an accepted
 * fact is kept, not applied: the burst's results are fed to the run as it saw it, and the kept
 * facts act before its last one is routed (workflows/burst.ts feedBurst), so their events come
 * where they acted. Each is validated against the run as the kept ones will leave it.
 */
import { proxySinks, setHandler } from '@temporalio/workflow';
import { control, refuseControl, type ControlFact } from '../fsm/run/control.js';
import type { RunningSnapshot, Snapshot, Transition } from '../fsm/run/snapshot.js';
import type { LoopDefinition } from '../fsm/schema.js';
import { pauseUpdate, steerUpdate, unpauseUpdate, type ControlAnswer, type SteerArgs } from './control-definitions.js';
import type { LoopSinks, LoopWorkflowInput } from './definitions.js';

const { loopEvents } = proxySinks<LoopSinks>();

export interface ControlHost {
  def: LoopDefinition;
  input: LoopWorkflowInput;
  instanceId: string;
  /** Where the run is (the workflow's last transition), and how to move it. */
  get: () => Transition;
  set: (t: Transition) => void;
  /** Publish the run's status after a change. */
  report: () => void;
  /** False while the run waits for its scope lock (it has not begun: there is nothing to pause yet). */
  begun: () => boolean;
  /** True while a burst runs whose controls act at its end (the `controlsAfterBursts` rule). */
  bursting: () => boolean;
}

/** The facts accepted during a burst, to act at its end (workflows/burst.ts feedBurst). */
export interface KeptControls {
  /** The kept facts, in the order accepted, for the burst's results to apply; none are kept afterwards. */
  take(): ControlFact[];
  /** Apply the kept facts now, as if accepted now (the burst gave no results to feed). */
  applyNow(): void;
  /** The run as the kept facts will leave it: what its status shows (a pause kept is "pausing"). */
  planned(): Snapshot;
}

/** Register the three updates on the running workflow. */
export function installControl(host: ControlHost): KeptControls {
  let kept: ControlFact[] = [];
  /** The run as the kept facts will leave it (each was validated against the one before). */
  const planned = (): Snapshot =>
    kept.reduce((s, fact) => control(host.def, s as RunningSnapshot, fact).snapshot, host.get().snapshot);
  const refuse = (fact: ControlFact): void => {
    if (!host.begun())
      throw new Error(
        `run ${host.instanceId} is waiting for its scope lock and has not begun; pause or steer it once it runs (ll-loop queue shows the queue)`,
      );
    const why = refuseControl(host.def, planned(), fact);
    if (why !== undefined) throw new Error(`run ${host.instanceId}: ${why}`);
  };
  const apply = (fact: ControlFact): ControlAnswer => {
    if (host.bursting()) {
      const s = host.get().snapshot;
      kept.push(fact);
      return { state: s.current, phase: s.phase, holding: false, after_quick: true };
    }
    return applyNow(fact);
  };
  const applyNow = (fact: ControlFact): ControlAnswer => {
    const at = host.get();
    const out = control(host.def, at.snapshot as RunningSnapshot, fact);
    host.set({ ...at, snapshot: out.snapshot } as Transition);
    for (const event of out.events) loopEvents.emit(event);
    host.report();
    const s = out.snapshot;
    return { state: s.current, phase: s.phase, holding: s.phase === 'paused' };
  };
  // Validators see no clock of the workflow's own making: `now` only matters once accepted.
  const steerFact = (a: SteerArgs): ControlFact => ({
    type: 'steer',
    to: a.to,
    by: a.by,
    ...(a.note === undefined ? {} : { note: a.note }),
    ...(a.context === undefined ? {} : { context: a.context }),
    now: Date.now(),
  });
  setHandler(pauseUpdate, ({ by }) => apply({ type: 'pause', by, now: Date.now() }), {
    validator: ({ by }) => refuse({ type: 'pause', by, now: 0 }),
  });
  setHandler(unpauseUpdate, ({ by }) => apply({ type: 'unpause', by, now: Date.now() }), {
    validator: ({ by }) => refuse({ type: 'unpause', by, now: 0 }),
  });
  setHandler(steerUpdate, (a) => apply(steerFact(a)), { validator: (a) => refuse({ ...steerFact(a), now: 0 }) });
  const take = (): ControlFact[] => {
    const taken = kept;
    kept = [];
    return taken;
  };
  return {
    take,
    planned,
    applyNow: () => {
      for (const fact of take()) if (refuseControl(host.def, host.get().snapshot, fact) === undefined) applyNow(fact);
    },
  };
}

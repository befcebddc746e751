/**
 * The workflow's side of quick states in bursts (runs with the `quickBursts` rule): a chain of
 * quick shell actions runs as ONE local activity (`runBurst`, activities/run-burst.ts), which
 * decides the transitions between them with the pure core; here the facts it returns are fed to
 * the same core in the same order, so the run records the events, routes and captured values it
 * would record one action at a time. Workflow code: deterministic, no Node built-ins.
 */
import { ActivityCancellationType, log, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { BurstAfter, BurstBounds, BurstOutcome } from '../fsm/run/burst.js';
import { control, refuseControl, type ControlFact } from '../fsm/run/control.js';
import type { RunStreamEvent } from '../fsm/run/events.js';
import type { RunEvent, RunningSnapshot, Snapshot, Transition } from '../fsm/run/snapshot.js';
import { transition } from '../fsm/run/transition.js';
import type { LoopDefinition } from '../fsm/schema.js';
import type { LoopActivities, RunBurstInput } from './activity-types.js';

/** What performing a burst gives the loop: its facts, to feed in order (not one fact). */
export interface BurstDone {
  type: 'burst';
  outcome: BurstOutcome;
}

/**
 * Local activities are recorded when the workflow task completes. After this much local-activity
 * work (or this many actions) the workflow takes a 1 ms durable timer, which completes the task
 * and records them, so a crash re-runs at most this much completed quick work.
 */
export const LOCAL_FLUSH_AFTER_MS = 1000;
export const LOCAL_FLUSH_AFTER_ACTIONS = 100;

/** Grace beyond the burst's longest possible run before Temporal gives up on it (as for `runAction`). */
const BURST_TIMEOUT_SLACK_S = 60;

/**
 * The longest a burst within `bounds` runs (s): no action starts once `maxMs` of action time is
 * spent, and each lasts at most `localMaxS`, but the first (`firstTimeoutS`) and those of states the
 * run saw quick (workflows/quick-record.ts): such an action may take its whole timeout (and,
 * having taken more than `maxMs`, is the burst's last).
 */
function longestBurstS(bounds: BurstBounds, firstTimeoutS: number): number {
  const learned = Object.values(bounds.learned ?? {});
  return Math.max(bounds.localMaxS, firstTimeoutS, ...learned) + Math.ceil(bounds.maxMs / 1000);
}

/** What the quick actions after an action may add to its activity's time (s; activities/burst-after.ts). */
export function burstAfterS(after: BurstAfter): number {
  return longestBurstS(after.bounds, 0);
}

/** The local activity of a burst: the retry policy and cancellation of a quick action's. */
function burstActivity(bounds: BurstBounds, firstTimeoutS: number): LoopActivities['runBurst'] {
  const longest = longestBurstS(bounds, firstTimeoutS);
  return proxyLocalActivities<LoopActivities>({
    startToCloseTimeout: `${longest + BURST_TIMEOUT_SLACK_S}s`,
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: ['ActionSetupError'] },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  }).runBurst;
}

/** Run a burst; its outcome as the loop's next input. */
export async function runBurst(input: RunBurstInput): Promise<BurstDone> {
  return { type: 'burst', outcome: await burstActivity(input.bounds, input.first.timeout_s)(input) };
}

export function isBurst(fact: RunEvent | BurstDone): fact is BurstDone {
  return fact.type === 'burst';
}

/**
 * Feed a burst's facts to the core from `at` (whose effect is the burst's first action), then, when
 * the burst stopped at the loop deadline, the `timeout` fact.
 *
 * With `controlsAtEnd` (the `controlsAfterBursts` rule) a person's pause or steer that reached the
 * run while the burst ran (or while its facts waited for the flush's timer) acts at the burst's
 * end. Such a fact was accepted but kept (`kept`, workflows/control-handlers.ts); a pause or steer
 * the run had before the burst began is held back. The burst's facts but the last are fed to the
 * run as the burst saw it, then the controls are applied (a `paused` event is recorded there), and
 * they act on the route after the last (fsm/run/control.ts: on entering). So every action
 * that ran is recorded as the result of the action it was, none is dropped to run again, and the
 * n-th result is the n-th action's (runs/follow/action-results.ts pairs them so). A burst runs at
 * most LOCAL_FLUSH_AFTER_MS of actions past its first: that is how late a control can act.
 *
 * Without it (runs of older releases) a fact that would meet anything but an action (a pause) is
 * not fed and the burst ends there; a steer's state took the next fact as its own action's.
 */
export function feedBurst(
  def: LoopDefinition,
  at: Transition,
  outcome: BurstOutcome,
  controlsAtEnd = false,
  kept: readonly ControlFact[] = [],
): Transition {
  const held = controlsAtEnd ? heldControls(at.snapshot) : undefined;
  let t = held === undefined ? at : ({ ...at, snapshot: held.without } as Transition);
  let restored = false;
  const events: RunStreamEvent[] = [];
  // The controls the run had, then those accepted while the burst ran, in order.
  const restore = (): void => {
    if (restored) return;
    restored = true;
    if (t.snapshot.status !== 'running') return;
    if (held !== undefined) t = { ...t, snapshot: { ...t.snapshot, ...held.controls } } as Transition;
    for (const fact of kept) {
      if (refuseControl(def, t.snapshot, fact) !== undefined) continue;
      const out = control(def, t.snapshot as RunningSnapshot, fact);
      t = { ...t, snapshot: out.snapshot } as Transition;
      events.push(...out.events);
    }
  };
  let fed = 0;
  for (const fact of outcome.facts) {
    if (t.snapshot.status !== 'running' || t.effect.type !== 'run_action') break;
    // Each fact is its state's action's result: one that is not the action the run comes to is
    // not taken for it (runs of older releases took it: a steer's state took the burst's next).
    const state = outcome.states?.[fed];
    if (controlsAtEnd && state !== undefined && state !== t.effect.input.state) break;
    if (fed === outcome.facts.length - 1) restore();
    t = transition(def, t.snapshot, fact);
    events.push(...t.events);
    fed += 1;
  }
  restore();
  if (fed < outcome.facts.length)
    log.warn(`a burst's last ${outcome.facts.length - fed} action result(s) no longer fit the run; not recorded`);
  if (outcome.deadline_at !== undefined && t.snapshot.status === 'running') {
    t = transition(def, t.snapshot, { type: 'timeout', now: outcome.deadline_at });
    events.push(...t.events);
  }
  return { ...t, events } as Transition;
}

/** A running snapshot's pause and steer, and the snapshot without them (undefined: it has neither). */
function heldControls(
  snapshot: Snapshot,
): { without: RunningSnapshot; controls: Pick<RunningSnapshot, 'pause' | 'steer'> } | undefined {
  if (snapshot.status !== 'running' || (snapshot.pause === undefined && snapshot.steer === undefined)) return undefined;
  const { pause, steer, ...without } = snapshot;
  return {
    without: without as RunningSnapshot,
    controls: { ...(pause === undefined ? {} : { pause }), ...(steer === undefined ? {} : { steer }) },
  };
}

/**
 * The `stopInBursts` rule's side here. A burst that saw the run's stop (`stopped_at`) ran no action
 * past it, but the run hears of the stop only with its next workflow task; {@link letStopIn} ends
 * this one (a 1 ms timer, as the local-activity flush does), and the stop, already recorded by
 * Temporal, comes with the next at once: it is thrown out of the timer as the cancellation it is.
 * Should the timer fire instead (no stop came), the run goes on and its bursts watch no more, so
 * that a watch which sees a stop the run never gets cannot kill every action that follows.
 */
export class BurstStops {
  constructor(private watching: boolean) {}

  /** Whether the next burst watches for the run's stop. */
  get watch(): boolean {
    return this.watching;
  }

  async letStopIn(): Promise<void> {
    await sleep(1);
    this.watching = false;
    log.warn("a burst saw the run's stop, but none came; its bursts no longer watch for one");
  }
}

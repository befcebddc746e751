/**
 * Quick states in bursts: which chain of quick shell actions a worker may run back to back,
 * deciding the transitions between them with this very core, before the workflow records them.
 *
 * A burst is a sequence of `action_done` facts. Whoever runs it (activities/run-burst.ts) feeds
 * each fact to `transition()` to learn the next action; the workflow then feeds the same facts to
 * the same core in the same order (workflows/burst.ts) and records the same events a run of one
 * action per activity would. The rules here only say where a burst must stop, so that anything the
 * workflow has to see, decide or wait for — a non-quick state, a terminal, a budget, a rate limit,
 * a stdout signal, a person's pause or steer, the loop deadline — happens in the workflow, as it does
 * step by step.
 */
import { hasBudget } from './budget.js';
import { transition } from './transition.js';
import type { ActionRequest, RunEvent, RunningSnapshot, Transition } from './snapshot.js';
import { actionKind, actionTimeout } from '../action.js';
import { CURRENT, declaredTargets } from '../routing.js';
import type { LoopDefinition } from '../schema.js';
import type { ActionResult } from '../types.js';

/** Quick actions: shell actions whose timeout is at most `localMaxS` seconds (run as local activities). */
function isQuickAction(input: Pick<ActionRequest, 'kind' | 'timeout_s'>, localMaxS: number): boolean {
  return input.kind === 'shell' && input.timeout_s <= localMaxS;
}

/** How much one burst may do: the same bound as the flush of local activities (a crash re-runs at most this). */
export interface BurstBounds {
  /** Actions at most. */
  maxActions: number;
  /** No action starts once the burst's actions took this long (ms, their `duration_ms` summed). */
  maxMs: number;
  /** The quick lane's limit (RunTuning.localActivityMaxTimeoutS). */
  localMaxS: number;
  /**
   * The states whose shell action the run saw finish quick (workflows/quick-record.ts, the
   * `learnedChains` rule), each with the longest timeout the burst's local activity allows for
   * it: such an action within that timeout goes on in the burst as a quick one does.
   */
  learned?: Readonly<Record<string, number>>;
  /**
   * A terminal state's quick action goes on in the burst too, as its last (the `terminalsInBursts`
   * rule): a loop's closing message costs no workflow task of its own.
   */
  terminals?: boolean;
}

/** The burst's facts so far. */
export interface BurstProgress {
  actions: number;
  ms: number;
}

/**
 * Whether a run may start a burst here: a quick action of a run no person has paused or steered,
 * under no budget (budgets are checked step by step), without a tamper guard or prepatch check. Otherwise the action runs alone, as before.
 */
export function mayBurst(
  def: LoopDefinition,
  snapshot: RunningSnapshot,
  first: ActionRequest,
  localMaxS: number,
): boolean {
  return isQuickAction(first, localMaxS) && burstAllowed(def, snapshot, first);
}

/**
 * Whether `first`, a shell action the run takes for quick (declared so, or seen quick:
 * workflows/quick-record.ts), may run in a burst now: no tamper guard or prepatch check, no
 * person's pause or steer, no budget.
 */
export function burstAllowed(def: LoopDefinition, snapshot: RunningSnapshot, first: ActionRequest): boolean {
  if (first.kind !== 'shell') return false;
  // A guarded action's test files are compared (and a prepatch check re-run) by the runAction activity alone.
  if (first.tamper_guard !== undefined || first.prepatch_check !== undefined) return false;
  if (snapshot.pause !== undefined || snapshot.steer !== undefined) return false;
  return !hasBudget(def, snapshot, def.states[first.state]);
}

/** Whether the result of a burst's action must go to the workflow before anything else runs. */
export function endsBurst(result: ActionResult): boolean {
  return result.rate_limit !== undefined || result.stdout_signal !== undefined;
}

/**
 * The action a burst runs next after `next` (the transition its last fact led to), or undefined
 * where the burst must end: the run is done, the next effect is not a quick action, its state is a
 * terminal (unless the bounds take terminals: then its action runs as the burst's last), the
 * bounds are reached, or a person's control or a budget now applies.
 */
export function nextBurstAction(
  def: LoopDefinition,
  next: Transition,
  done: BurstProgress,
  bounds: BurstBounds,
): ActionRequest | undefined {
  if (next.effect.type !== 'run_action' || next.snapshot.status !== 'running') return undefined;
  if (done.actions >= bounds.maxActions || done.ms >= bounds.maxMs) return undefined;
  const request = next.effect.input;
  if (def.states[request.state]?.terminal && bounds.terminals !== true) return undefined;
  if (mayBurst(def, next.snapshot, request, bounds.localMaxS)) return request;
  return seenQuick(request, bounds) && burstAllowed(def, next.snapshot, request) ? request : undefined;
}

/** Whether `request` is a shell action of a state the run saw quick, within the timeout the burst allows it. */
function seenQuick(request: ActionRequest, bounds: BurstBounds): boolean {
  if (request.kind !== 'shell') return false;
  const learned = bounds.learned;
  if (learned === undefined || !Object.hasOwn(learned, request.state)) return false;
  return request.timeout_s <= learned[request.state]!;
}

/** One fact of a burst: an action's result, timed when it ended. */
export type BurstFact = Extract<RunEvent, { type: 'action_done' }>;

/**
 * What a burst reports: the facts of its actions in order and, when it stopped at the loop
 * deadline (an action killed there, or none started past it), the time it did.
 */
export interface BurstOutcome {
  facts: BurstFact[];
  /** The state of each fact's action, in order (absent from bursts of older releases). */
  states?: string[];
  deadline_at?: number;
  /**
   * The run's stop was seen while the burst ran (`watch_stop`): the action running then was killed
   * and its result dropped, as a stopped remote action's is. The workflow lets its task end so
   * that Temporal hands it the stop.
   */
  stopped_at?: number;
  /**
   * A fan-out item's burst in a lane (RunBurstInput.lane_item): its facts are the item's, not the
   * run's own actions', and whoever reads the run's history for its actions' outputs skips them
   * (runs/follow/action-results.ts).
   */
  lane_item?: string;
}

/**
 * The quick actions that follow an action, run in that action's own activity (the
 * `burstsAfterActions` rule): what the activity needs to decide them with this core. The
 * workflow feeds the action's fact and theirs to the same core in the same order
 * (workflows/perform-effect.ts), as it feeds a burst's.
 */
export interface BurstAfter {
  definition: LoopDefinition;
  /** The snapshot whose effect is the action (no person's pause or steer on it). */
  snapshot: RunningSnapshot;
  bounds: BurstBounds;
  /** The loop deadline (epoch ms), if the loop has a timeout. */
  deadline_ms?: number;
}

/**
 * What an action's activity returns beside the action's result when it ran the quick actions
 * after it: the time the action's own fact was taken at (the core was fed it so), and the quick
 * actions' burst, as a burst reports it.
 */
export interface BurstAfterOutcome extends BurstOutcome {
  now: number;
}

/**
 * The burst that follows `fact`, the result of the action `after.snapshot` ran: the snapshot
 * whose effect is its first action, and that action; undefined where none may follow in the
 * action's activity (the run is done, a rate limit or a stdout signal must reach the workflow
 * first, or the next state's action may not run in a burst: {@link nextBurstAction}).
 */
export function burstAfter(
  after: BurstAfter,
  fact: BurstFact,
): { snapshot: RunningSnapshot; first: ActionRequest; events: Transition['events'] } | undefined {
  if (endsBurst(fact.result)) return undefined;
  const next = transition(after.definition, after.snapshot, fact);
  if (next.snapshot.status !== 'running') return undefined;
  const first = nextBurstAction(after.definition, next, { actions: 0, ms: 0 }, after.bounds);
  return first === undefined ? undefined : { snapshot: next.snapshot, first, events: next.events };
}

/**
 * Whether a quick action may follow `state`'s action at all: one of the states it routes to (a
 * `${…}` target: any) is a shell state (a terminal only when the bounds take terminals), whose
 * timeout is within the quick lane or which the run saw quick. Only then does the action's input
 * carry the definition ({@link BurstAfter}), which its history keeps.
 */
export function mayBurstAfter(def: LoopDefinition, state: string, bounds: BurstBounds): boolean {
  const config = def.states[state];
  if (config === undefined) return false;
  return declaredTargets(config).some(({ target }) => {
    if (target.includes('${')) return true;
    const name = target === CURRENT ? state : target;
    const next = def.states[name];
    if (next === undefined || next.action === undefined || actionKind(next) !== 'shell') return false;
    if (next.terminal && bounds.terminals !== true) return false;
    const timeout = actionTimeout(def, next);
    return timeout <= bounds.localMaxS || (bounds.learned !== undefined && Object.hasOwn(bounds.learned, name));
  });
}

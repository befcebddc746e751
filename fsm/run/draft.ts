/**
 * The working copy one transition mutates, and the small operations every transition shares:
 * emitting events, setting the effect, finishing the run, remembering `prev`. Pure, like the
 * rest of fsm/.
 */
import { formatDuration } from '../format.js';
import { InterpolationError, type InterpolationScope } from '../interpolate.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import type { EventFields, EventName, RunStreamEvent } from './events.js';
import type { Effect, Phase, RunData } from './snapshot.js';
import { TemplateSyntaxError } from '../template.js';
import type { ActionResult, ExecutionResult, TerminatedBy } from '../types.js';

/** The snapshot while a transition works on it: one bag, sealed into the typed union at the end. */
export interface WorkSnapshot extends RunData {
  phase: Phase | 'starting';
  pending: ActionResult | null;
  outcome: ExecutionResult | null;
}

/** Mutable working copy for one transition. */
export interface Draft {
  def: LoopDefinition;
  snap: WorkSnapshot;
  now: number;
  events: RunStreamEvent[];
  /** The one effect of this transition, once decided. */
  effect?: Effect;
  /** The begun run (resumed or moved) runs its current state again, without entering it anew. */
  rerunCurrent?: boolean;
  /** The state to enter next; the transition drains this in a loop, so action-less chains never recurse. */
  goto?: { name: string; newCycle?: boolean };
}

/** The current call's schema re-asks are over (answered, judged or abandoned). */
export function endAsks(d: Draft): void {
  delete d.snap.schemaAsks;
  delete d.snap.reaskErrors;
}

/** Append an event to the stream, numbered and timed by the core's clock. */
export function emit<E extends EventName>(d: Draft, event: E, fields: EventFields<E>): void {
  d.snap.seq += 1;
  // `fields` are the fields of event `event` (the signature), so this is that member of the union;
  // the compiler cannot follow a generic name into the union, hence the cast.
  d.events.push({ event, ...fields, seq: d.snap.seq, ts: new Date(d.now).toISOString() } as unknown as RunStreamEvent);
}

/**
 * Decide the transition's effect. A transition has exactly one: deciding a second is a bug in
 * the core (every path that sets one returns at once), reported loudly rather than dropped.
 */
export function setEffect(d: Draft, effect: Effect): void {
  if (d.effect) throw new Error(`internal: a transition decided two effects (${d.effect.type}, then ${effect.type})`);
  d.effect = effect;
}

/** Everything templates can see while the current state runs. */
export function scopeOf(def: LoopDefinition, snap: RunData, now: number): InterpolationScope {
  const elapsed = now - snap.startedAtMs;
  return {
    // Values a steer or a rerun set are over the definition's.
    context: snap.context === undefined ? def.context : { ...def.context, ...snap.context },
    captured: snap.captured,
    prev: snap.prev,
    result: snap.result,
    state: { name: snap.current, iteration: snap.iteration },
    loop: { name: def.name, started_at: snap.startedAt, elapsed_ms: elapsed, elapsed: formatDuration(elapsed) },
    ...(snap.dataContext?.length ? { dataContext: snap.dataContext } : {}),
  };
}

/** The config of a state the definition has (validated before the run). */
export function stateOf(d: Draft, name = d.snap.current): StateConfig {
  const state = d.def.states[name];
  if (!state) throw new Error(`internal: state "${name}" is not in the definition`);
  return state;
}

/** End the run: the result, the loop_complete event and the finish command. */
export function finish(d: Draft, terminatedBy: TerminatedBy, error?: string): void {
  const { snap } = d;
  const state = d.def.states[snap.current];
  const result: ExecutionResult = {
    loop: d.def.name,
    final_state: snap.current,
    iterations: snap.iteration,
    steps: snap.steps,
    terminated_by: terminatedBy,
    failure: terminatedBy === 'terminal' && state?.failure === true,
    duration_ms: d.now - snap.startedAtMs,
    captured: snap.captured,
  };
  if (error !== undefined) result.error = error;
  if (d.def.maintain) result.cycles = snap.cycles;
  // Only runs whose agent calls reported usage have spent anything (fsm/run/budget.ts).
  if (snap.spent !== undefined) result.spent = snap.spent;
  snap.phase = 'done';
  snap.pending = null;
  snap.outcome = result;
  d.goto = undefined;
  emit(d, 'loop_complete', {
    final_state: result.final_state,
    iterations: result.iterations,
    steps: result.steps,
    terminated_by: terminatedBy,
    // A `failure: true` terminal, told apart from a success terminal (seed 001's event has no such field).
    ...(result.failure ? { failure: true } : {}),
    duration_ms: result.duration_ms,
    ...(result.cycles === undefined ? {} : { cycles: result.cycles }),
    ...(error === undefined ? {} : { error }),
    ...(result.spent === undefined ? {} : { spent: result.spent }),
  });
  setEffect(d, { type: 'finish', result });
}

/** The message of an interpolation or other error. */
export function messageOf(err: unknown): string {
  if (err instanceof InterpolationError || err instanceof TemplateSyntaxError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/** Captured and `prev` text drops trailing newlines, as bash's `$(…)` does. */
export function chomp(text: string): string {
  return text.replace(/[\r\n]+$/, '');
}

/** `prev` becomes the current state's outcome. */
export function setPrev(d: Draft, action: ActionResult | null): void {
  d.snap.prev = {
    state: d.snap.current,
    output: chomp(action?.output ?? ''),
    stderr: chomp(action?.stderr ?? ''),
    exit_code: action?.exit_code ?? 0,
    // Only a timed-out action has one, so prev of every other action is as it always was.
    ...(action?.timed_out ? { timeout_kind: action.timeout_kind ?? 'wall' } : {}),
  };
}

/**
 * A person steering a running loop (seed 004's interruptibility and override): what a pause, an
 * unpause and a steer mean for a run. The workflow only delivers these facts (as Temporal
 * Updates); this module decides whether one is accepted and what it changes.
 *
 * - `pause`: the run holds before its next transition — the current action (or evaluation,
 *   sleep, sub-loop) finishes and is judged and routed, then the run waits (phase `paused`,
 *   effect `await_release`) instead of entering the next state. A pause is part of the snapshot,
 *   so it outlasts workers, servers and continue-as-new. The loop's timeout keeps counting.
 * - `unpause`: the pause ends; a holding run enters the state it was routed to.
 * - `steer`: the run's next transition goes to `to` instead of the routed state, with `context`
 *   values set over the definition's (data, like `--context`, in shell actions). A paused run is
 *   let go at once (the steer ends the pause), and so is a run waiting in a human state (its
 *   question is dropped unanswered). A steer to a terminal state ends the run there
 *   (its action runs, as at any terminal). A later steer replaces one not yet applied.
 */
import { closest } from '../suggest.js';
import type { LoopDefinition } from '../schema.js';
import { contextTypeProblems } from '../definition/parameters.js';
import { emit, setEffect, type Draft, type WorkSnapshot } from './draft.js';
import type { RunStreamEvent } from './events.js';
import type { RunningSnapshot, Snapshot } from './snapshot.js';

/** What a person asked of a running loop (`by`: user@host; `now`: the workflow's clock). */
export type ControlFact =
  | { type: 'pause'; by: string; now: number }
  | { type: 'unpause'; by: string; now: number }
  | { type: 'steer'; to: string; by: string; note?: string; context?: Record<string, string>; now: number };

function didYouMean(name: string, known: readonly string[]): string {
  const near = closest(name, known);
  return near === undefined ? '' : ` (did you mean "${near}"?)`;
}

/**
 * Why `fact` cannot be accepted by a run in `snapshot` (one line, naming the fix), or undefined
 * when it can. Nothing changes in a run whose fact is refused.
 */
export function refuseControl(def: LoopDefinition, snapshot: Snapshot, fact: ControlFact): string | undefined {
  if (snapshot.status === 'done') return `the run has already ended (state "${snapshot.current}")`;
  if (fact.type === 'pause' && snapshot.pause !== undefined)
    return `the run is already paused (by ${snapshot.pause.by}); unpause it with ll-loop unpause`;
  if (fact.type === 'unpause' && snapshot.pause === undefined)
    return snapshot.phase === 'handoff'
      ? `the run is not paused by ll-loop pause: it waits on a handoff in state "${snapshot.current}", which ll-loop resume continues`
      : `the run is not paused (state "${snapshot.current}", phase ${snapshot.phase})`;
  if (fact.type !== 'steer') return undefined;
  const states = Object.keys(def.states);
  if (!(fact.to in def.states))
    return `loop "${def.name}" has no state "${fact.to}"${didYouMean(fact.to, states)}; its states: ${states.join(', ')}`;
  const keys = Object.keys(def.context ?? {});
  for (const key of Object.keys(fact.context ?? {})) {
    if (!keys.includes(key))
      return `loop "${def.name}" has no context key "${key}"${didYouMean(key, keys)}; its keys: ${keys.join(', ') || '(none)'}`;
  }
  // A typed parameter takes a value of its type, as at the start of a run.
  return contextTypeProblems(def, fact.context ?? {})[0]?.message;
}

/** A draft over the snapshot, for emitting numbered events (only control fields are read back). */
function draftOf(def: LoopDefinition, snapshot: RunningSnapshot, now: number): Draft {
  const snap = { pending: null, outcome: null, ...snapshot } as WorkSnapshot;
  return { def, snap, now, events: [] };
}

/** The run after an accepted fact, and the events it emitted (call refuseControl first). */
export function control(
  def: LoopDefinition,
  snapshot: RunningSnapshot,
  fact: ControlFact,
): { snapshot: RunningSnapshot; events: RunStreamEvent[] } {
  const d = draftOf(def, snapshot, fact.now);
  const state = snapshot.current;
  const paused = snapshot.pause;
  if (fact.type === 'pause') {
    d.snap.pause = { by: fact.by, since_ms: fact.now };
    emit(d, 'paused', { state, by: fact.by });
  } else {
    // An unpause, or a steer (which lets a paused run go at once).
    if (paused !== undefined) emit(d, 'unpaused', { state, by: fact.by, paused_ms: fact.now - paused.since_ms });
    delete d.snap.pause;
    if (fact.type === 'steer') {
      const { to, by, note, context } = fact;
      d.snap.steer = {
        to,
        by,
        at_ms: fact.now,
        ...(note === undefined ? {} : { note }),
        ...(context && Object.keys(context).length ? { context } : {}),
      };
    }
  }
  const { pause: _pause, steer: _steer, ...rest } = snapshot;
  const next = {
    ...rest,
    seq: d.snap.seq,
    ...(d.snap.pause === undefined ? {} : { pause: d.snap.pause }),
    ...(d.snap.steer === undefined ? {} : { steer: d.snap.steer }),
  } as RunningSnapshot;
  return { snapshot: next, events: d.events };
}

/**
 * The run is about to enter `d.goto`: a pending steer replaces it (with its context values set),
 * then a pause holds the run there. True when the run holds (the transition's effect is decided).
 */
export function beforeEntering(d: Draft): boolean {
  const { snap } = d;
  const steer = snap.steer;
  if (steer !== undefined && d.goto !== undefined) {
    delete snap.steer;
    const keys = Object.keys(steer.context ?? {});
    if (keys.length) {
      snap.context = { ...snap.context, ...steer.context };
      // Values typed by a person are data in shell actions, like `--context` values.
      snap.dataContext = [...new Set([...(snap.dataContext ?? []), ...keys])];
    }
    emit(d, 'steered', {
      from: snap.current,
      to: steer.to,
      replaced: d.goto.name,
      by: steer.by,
      ...(steer.note === undefined ? {} : { note: steer.note }),
      ...(keys.length ? { context: keys } : {}),
    });
    d.goto = { name: steer.to };
  }
  if (snap.pause === undefined || d.goto === undefined) return false;
  snap.held = d.goto;
  d.goto = undefined;
  snap.phase = 'paused';
  setEffect(d, { type: 'await_release', state: snap.current });
  return true;
}

/**
 * The holding run was let go: it enters the state it held before (a steer then replaces it). A
 * run waiting for an answer is let go by a steer only: its question is dropped unanswered, and the
 * steer (applied on entering) names where it goes instead.
 */
export function release(d: Draft): void {
  if (d.snap.phase === 'human') {
    delete d.snap.human;
    const steer = d.snap.steer;
    if (steer)
      d.snap.humanEnded = { state: d.snap.current, how: 'steered', by: steer.by, to: steer.to, at_ms: steer.at_ms };
  }
  const held = d.snap.held ?? { name: d.snap.current };
  delete d.snap.held;
  d.snap.phase = 'starting';
  d.goto = held;
}

/**
 * The initial transition's first half: the snapshot a run begins with — fresh, as a sub-loop
 * with what its parent passed, continuing an earlier run (`ll-loop resume`: a fresh clock and
 * event stream), or moved onto this release (the same clock and stream) — and its first event.
 * `transition()` then enters the initial state, or runs the resumed state again (`rerunCurrent`).
 */
import { emit, finish, type Draft, type WorkSnapshot } from './draft.js';
import type { LoopDefinition } from '../schema.js';
import { SNAPSHOT_SEMANTICS, type Fork, type Snapshot, type StartEvent, type Upgrade } from './snapshot.js';

/** The first transition: a fresh run, a sub-loop, a run continuing an earlier one, or one that cannot start. */
export function begin(def: LoopDefinition, event: StartEvent): Draft {
  const { now } = event;
  const semantics = SNAPSHOT_SEMANTICS;
  if (event.resumeFrom) return beginResumed(def, event.resumeFrom, now, semantics);
  const d: Draft = { def, snap: freshSnapshot(def.initial, now, semantics), now, events: [] };
  if (event.inherited?.captured) d.snap.captured = event.inherited.captured;
  if (event.inherited?.dataContext?.length) d.snap.dataContext = event.inherited.dataContext;
  // A sub-loop of a run with a budget spends from what its parent had left (fsm/run/budget.ts).
  if (event.inherited?.budget !== undefined) d.snap.inheritedBudget = event.inherited.budget;
  emit(d, 'loop_start', { loop: def.name, initial: def.initial, max_iterations: def.max_iterations });
  if (event.error !== undefined) finish(d, 'error', event.error);
  else d.goto = { name: def.initial };
  return d;
}

function freshSnapshot(initial: string, now: number, semantics: number): WorkSnapshot {
  return {
    semantics,
    seq: 0,
    phase: 'starting',
    current: initial,
    iteration: 0,
    visited: [],
    steps: 0,
    cycles: 0,
    attempt: 1,
    captured: {},
    prev: null,
    result: null,
    lastValues: {},
    pending: null,
    startedAt: new Date(now).toISOString(),
    startedAtMs: now,
    outcome: null,
  };
}

/**
 * Continue a run from a snapshot another run left (stopped, timed out, failed): the state it was
 * in runs again, with its captured values, counters and last result, under today's rules, with a
 * fresh clock (and so a fresh loop-level timeout budget) and a new event stream.
 */
function beginResumed(
  def: LoopDefinition,
  from: { runId: string; snapshot: Snapshot; upgrade?: Upgrade; fork?: Fork },
  now: number,
  semantics: number,
): Draft {
  const {
    status: _status,
    phase: _phase,
    ...rest
  } = from.snapshot as Snapshot & { outcome?: unknown; pending?: unknown };
  // The state runs again from its start: a pause or re-ask of its last call is over.
  const {
    outcome: _outcome,
    pending: _pending,
    rateLimit: _paused,
    reaskErrors: _asked,
    handoff: _handedOff,
    stopping: _stopping,
    // A person's pause or steer was for that run, not this one.
    pause: _pause,
    steer: _steer,
    held: _held,
    ...data
  } = rest;
  const upgrade = from.upgrade;
  const snap: WorkSnapshot = {
    ...data,
    semantics,
    // An upgraded run is the same run: its events go on numbering and its clock keeps running.
    seq: upgrade ? data.seq : 0,
    phase: 'starting',
    pending: null,
    outcome: null,
    ...(upgrade ? {} : { startedAtMs: now, startedAt: new Date(now).toISOString() }),
  };
  const d: Draft = { def, snap, now, events: [] };
  if (upgrade) {
    emit(d, 'loop_upgraded', {
      loop: def.name,
      from_semantics: from.snapshot.semantics,
      to_semantics: semantics,
      ...(upgrade.fromBuild === undefined ? {} : { from_build: upgrade.fromBuild }),
      state: d.snap.current,
      iteration: d.snap.iteration,
      reason: upgrade.reason,
    });
  } else if (from.fork) {
    const keys = Object.keys(from.fork.context ?? {});
    if (keys.length) {
      d.snap.context = { ...d.snap.context, ...from.fork.context };
      d.snap.dataContext = [...new Set([...(d.snap.dataContext ?? []), ...keys])];
    }
    emit(d, 'loop_fork', {
      loop: def.name,
      forked_from: `${from.runId}@${from.fork.event}`,
      state: d.snap.current,
      iteration: d.snap.iteration,
      ...(keys.length ? { context: keys } : {}),
    });
  } else
    emit(d, 'loop_resume', {
      loop: def.name,
      from_run: from.runId,
      state: d.snap.current,
      iteration: d.snap.iteration,
    });
  if (!(d.snap.current in def.states)) {
    finish(
      d,
      'error',
      `cannot resume: state "${d.snap.current}" is not in the loop definition any more; known: ${Object.keys(def.states).join(', ')}`,
    );
  } else if (d.snap.iteration > def.max_iterations) {
    d.snap.iteration = def.max_iterations;
    finish(d, 'max_iterations');
  } else d.rerunCurrent = true;
  return d;
}

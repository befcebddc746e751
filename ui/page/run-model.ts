/**
 * A run as the page knows it, folded from the server's messages: the lit state, how often each
 * edge was taken, the path, each action's output (streamed while it runs, then the whole of it
 * from its `action_complete`), sub-loop children, captured values. Pure: no DOM, unit-tested.
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import type { TerminatedBy } from '../../fsm/types.js';
import { loopOutcome } from '../../reporters/outcome-words.js';
import type { RunGraph, RunMessage } from '../server/wire.js';
import { applyFanoutEvent, type FanoutView } from './fanout-model.js';

/** One action of the run or of a sub-loop. */
export interface ActionView {
  workflowId: string;
  depth: number;
  state: string;
  pass: number;
  attempt: number;
  running: boolean;
  /** It never ended: its run (or sub-loop) ended while it ran (stopped, say), with no result of its own. */
  cut?: boolean;
  /** Streamed text while it runs; stdout (and stderr, marked) once it ended. */
  text: string;
  exitCode?: number;
  durationMs?: number;
}

export interface RunModel {
  /** The run's id (its workflow id). */
  runId: string;
  graph: RunGraph | undefined;
  events: TimedEvent[];
  /** The top-level run's current (or, once ended, final) state. */
  current: string | undefined;
  /** The loop ended (its `loop_complete`, or the server's end message). */
  ended: boolean;
  /** How the run closed, as the server says once it has (Temporal's status, the outcome, the end line). */
  end: { status: string; outcome: string; summary: string } | undefined;
  /**
   * How the run ended, in the outcome words (reporters/outcome-words.ts): from its
   * `loop_complete` as soon as that comes, then from the server's end message.
   */
  outcome: string | undefined;
  /** How the top-level loop ended (its `loop_complete`): `terminal` cannot be resumed. */
  terminatedBy: string | undefined;
  /** The sequence number of the run's last event (its own, not a sub-loop's). */
  lastSeq: number;
  /** A state entered that the events have not brought yet (from the worker's events file). */
  liveState: { seq: number; state: string } | undefined;
  /** The run is paused on a handoff (`on_handoff: pause`), waiting for a person to resume it. */
  waiting: boolean;
  /** `from → to` (joined by U+0000) → times taken, top-level run only. */
  edgeCounts: Map<string, number>;
  /** The states the run entered, in order (top level). */
  path: string[];
  actions: ActionView[];
  /** Sub-loop runs by workflow id: the loop and the parent state that started them. */
  children: Map<string, { loop: string; depth: number; ended?: boolean; outcome?: string }>;
  /** The run's parallel states (fanout-model.ts), by state. */
  fanouts: Map<string, FanoutView>;
  captured: Record<string, unknown>;
  notice: string | undefined;
  error: string | undefined;
}

export function emptyModel(runId: string): RunModel {
  return {
    runId,
    graph: undefined,
    events: [],
    current: undefined,
    ended: false,
    end: undefined,
    outcome: undefined,
    terminatedBy: undefined,
    waiting: false,
    liveState: undefined,
    lastSeq: 0,
    edgeCounts: new Map(),
    path: [],
    actions: [],
    children: new Map(),
    fanouts: new Map(),
    captured: {},
    notice: undefined,
    error: undefined,
  };
}

export const edgeKey = (from: string, to: string): string => `${from}\u0000${to}`;

/** Per workflow: the pass and the running action. */
const lanes = new WeakMap<RunModel, Map<string, { pass: number; action: ActionView | undefined; loop: string }>>();

function laneOf(model: RunModel, id: string): { pass: number; action: ActionView | undefined; loop: string } {
  let all = lanes.get(model);
  if (!all) {
    all = new Map();
    lanes.set(model, all);
  }
  let lane = all.get(id);
  if (!lane) {
    lane = { pass: 1, action: undefined, loop: '' };
    all.set(id, lane);
  }
  return lane;
}

/** An action that will never end by itself: not running any more, with no exit code. */
function cutShort(action: ActionView): void {
  action.running = false;
  action.cut = true;
}

/** What an ended action printed: stdout, then stderr marked. */
function finalText(o: { output?: string; stderr?: string } | undefined): string {
  if (!o) return '';
  const out = o.output ?? '';
  const err = o.stderr ?? '';
  if (err === '') return out;
  return `${out}${out === '' || out.endsWith('\n') ? '' : '\n'}── stderr ──\n${err}`;
}

function str(e: TimedEvent, key: string): string | undefined {
  const v = (e as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

function num(e: TimedEvent, key: string): number | undefined {
  const v = (e as Record<string, unknown>)[key];
  return typeof v === 'number' ? v : undefined;
}

/** Folds one event into the model. */
function applyEvent(model: RunModel, e: TimedEvent): void {
  model.events.push(e);
  if (!e.subloop) model.lastSeq = e.seq;
  const id = e.subloop?.workflow_id ?? '';
  const depth = e.subloop?.depth ?? 0;
  const lane = laneOf(model, id);
  if (id !== '' && !model.children.has(id)) model.children.set(id, { loop: '', depth });
  if (id === '') applyFanoutEvent(model.fanouts, e);
  switch (e.event) {
    case 'loop_start':
    case 'loop_resume':
      lane.loop = str(e, 'loop') ?? '';
      if (id !== '') model.children.set(id, { loop: lane.loop, depth });
      if (e.event === 'loop_resume' && id === '') model.current = str(e, 'state');
      break;
    case 'state_enter': {
      const state = str(e, 'state') ?? '';
      lane.pass = num(e, 'iteration') ?? lane.pass;
      if (id === '') {
        const from = model.path.at(-1);
        if (from !== undefined)
          model.edgeCounts.set(edgeKey(from, state), (model.edgeCounts.get(edgeKey(from, state)) ?? 0) + 1);
        model.path.push(state);
        model.current = state;
        model.waiting = false;
      }
      break;
    }
    case 'action_start': {
      const action: ActionView = {
        workflowId: id,
        depth,
        state: str(e, 'state') ?? '',
        pass: lane.pass,
        attempt: num(e, 'attempt') ?? 1,
        running: true,
        text: '',
      };
      lane.action = action;
      model.actions.push(action);
      break;
    }
    case 'action_complete':
    case 'action_error': {
      const action = lane.action;
      lane.action = undefined;
      if (!action) break;
      action.running = false;
      if (e.event === 'action_complete') {
        action.text =
          finalText((e as { action_output?: { output?: string; stderr?: string } }).action_output) || action.text;
        const code = num(e, 'exit_code');
        if (code !== undefined) action.exitCode = code;
        const ms = num(e, 'duration_ms');
        if (ms !== undefined) action.durationMs = ms;
      } else
        action.text += `${action.text === '' || action.text.endsWith('\n') ? '' : '\n'}error: ${str(e, 'error') ?? ''}`;
      break;
    }
    case 'handoff':
      if (id === '' && str(e, 'mode') === 'pause') model.waiting = true;
      break;
    case 'handoff_resumed':
      if (id === '') model.waiting = false;
      break;
    case 'loop_complete': {
      // An action still running has no end of its own to come (a stopped run's action is killed).
      if (lane.action) cutShort(lane.action);
      lane.action = undefined;
      const by = str(e, 'terminated_by');
      const failure = (e as { failure?: boolean }).failure === true;
      const outcome = by === undefined ? undefined : loopOutcome({ terminated_by: by as TerminatedBy, failure });
      if (id !== '') {
        const child = model.children.get(id);
        if (child) {
          child.ended = true;
          child.outcome = outcome ?? 'ended';
        }
      }
      if (id === '') {
        model.waiting = false;
        model.ended = true;
        model.outcome = outcome;
        model.terminatedBy = by;
        const final = str(e, 'final_state');
        if (final) model.current = final;
      }
      break;
    }
    default:
      break;
  }
}

/** Folds one message of the run's stream; returns whether the graph must be drawn again. */
export function applyMessage(model: RunModel, m: RunMessage): boolean {
  switch (m.type) {
    case 'graph': {
      // A (re)connected stream starts over with the whole backlog.
      const fresh = emptyModel(model.runId);
      Object.assign(model, fresh, { graph: m.graph });
      lanes.delete(model);
      return true;
    }
    case 'events':
      for (const e of m.events) applyEvent(model, e);
      return false;
    case 'output': {
      // The run's own actions are in the lane '' (its events carry no sub-loop mark).
      const action = laneOf(model, m.workflowId === model.runId ? '' : m.workflowId).action;
      if (!action) return false;
      action.text = m.restart ? '[… earlier output skipped …]\n' : action.text + m.text;
      return false;
    }
    case 'live_state':
      model.liveState = { seq: m.seq, state: m.state };
      return false;
    case 'captured':
      model.captured = m.captured;
      return false;
    case 'end':
      model.ended = true;
      model.end = { status: m.status, outcome: m.outcome, summary: m.summary };
      model.outcome = m.outcome;
      // Closed: nothing still running will end now (a terminated run records no action's end).
      for (const a of model.actions) if (a.running) cutShort(a);
      return false;
    case 'notice':
      model.notice = m.message === '' ? undefined : m.message;
      return false;
    case 'error':
      model.error = m.message;
      return false;
  }
}

/** Whether the events file announced a state the events have not brought yet. */
export function litAhead(model: RunModel): boolean {
  return !model.ended && model.liveState !== undefined && model.liveState.seq > model.lastSeq;
}

/** The state to light: the newest known, from the events or, ahead of them, the events file. */
export function litState(model: RunModel): string | undefined {
  return litAhead(model) ? model.liveState?.state : model.current;
}

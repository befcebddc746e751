/**
 * Test helpers for the pure core: a validated definition from a plain object, and a tiny driver
 * that plays a run through `transition` with scripted action results and LLM verdicts.
 * No mocks: the driver only feeds facts and records effects, as the workflow does.
 */
import { expect } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Diagnostic } from '../../fsm/diagnostics.js';
import { compileParadigm } from '../../fsm/definition/paradigms/index.js';
import { resolveContext } from '../../fsm/definition/context.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { Effect, RunEvent, Snapshot, Transition } from '../../fsm/run/snapshot.js';
import type { LoopEvent as KnownLoopEvent, RunStreamEvent } from '../../fsm/run/events.js';
import { transition } from '../../fsm/run/transition.js';
import type { ActionResult, EvalResult, ExecutionResult, RunActionInput } from '../../fsm/types.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import type { InterpolationScope } from '../../fsm/interpolate.js';

/** A definition with defaults applied; throws with the diagnostics when the loop is invalid. */
export function def(raw: Record<string, unknown>): LoopDefinition {
  const result = validateLoop(raw);
  if (!result.definition) throw new Error(`invalid test loop:\n${JSON.stringify(result.diagnostics, null, 2)}`);
  return result.definition;
}

/** Like `def`, with the context resolved as the client does before a run. */
export function resolvedDef(raw: Record<string, unknown>): LoopDefinition {
  const d = def(raw);
  return { ...d, context: resolveContext(d.context) };
}

/** `def` from YAML text (YAML 1.2 core schema, as the loader uses). */
export function defFromYaml(text: string): LoopDefinition {
  return def(parseYaml(text) as Record<string, unknown>);
}

/** A loop object with a name, description and a `done` terminal, plus the given states/fields. */
export function loop(states: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'test-loop',
    description: 'test',
    initial: Object.keys(states)[0],
    states: { ...states, done: { terminal: true } },
    ...extra,
  };
}

type ScriptedAction = Partial<ActionResult>;
type ScriptedVerdict = string | EvalResult;

export interface Script {
  /** Action results per state, consumed in order; the last one repeats; default exit 0, no output. */
  actions?: Record<string, ScriptedAction[]>;
  /** LLM evaluations per state, consumed in order; the last one repeats. */
  llm?: Record<string, ScriptedVerdict[]>;
  /** diff_stall: the worker's `git diff --stat` per state (or its error), consumed in order; the last one repeats. */
  diffs?: Record<string, Array<string | { error: string }>>;
  /** Instead of completing the n-th run_action (1-based), feed this event. */
  interrupt?: { atAction: number; event: 'timeout' | 'cancel' | 'action_failed'; error?: string };
  /** Start time (epoch ms); the clock advances 10 ms per event fed. */
  startAt?: number;
}

/** An effect, or an event in the trace of a run (`emit`). */
type Traced = Effect | { type: 'emit'; event: LoopEvent };

export interface Run {
  result: ExecutionResult;
  /** The events, without the core's numbering and time (see `stream` for those). */
  events: LoopEvent[];
  /** The events as emitted: numbered and timed. */
  stream: RunStreamEvent[];
  /** Event names, in order. */
  names: string[];
  /** States entered (`state_enter`), in order. */
  entered: string[];
  /** Every effect, in order. */
  commands: Effect[];
  /** Every effect and event, in order: the full trace. */
  all: Traced[];
  /** run_action inputs, in order. */
  actions: Array<Omit<RunActionInput, 'instanceId' | 'cwd'>>;
  /** The snapshot after each step. */
  snapshots: Snapshot[];
  final: Snapshot;
}

function take<T>(queue: T[] | undefined, index: number): T | undefined {
  if (!queue || queue.length === 0) return undefined;
  return queue[Math.min(index, queue.length - 1)];
}

function actionResult(partial: ScriptedAction | undefined): ActionResult {
  return { output: '', stderr: '', exit_code: 0, duration_ms: 5, ...partial };
}

function evalResult(v: ScriptedVerdict | undefined, state: string): EvalResult {
  if (v === undefined) throw new Error(`driver: no LLM verdict scripted for state "${state}"`);
  return typeof v === 'string' ? { verdict: v, details: { confidence: 0.9, reason: `llm said ${v}` } } : v;
}

/** Play a run to its `finish` effect. */
export function drive(definition: LoopDefinition, script: Script = {}): Run {
  let now = script.startAt ?? 1_000;
  const stream: RunStreamEvent[] = [];
  const commands: Effect[] = [];
  const all: Traced[] = [];
  const actions: Run['actions'] = [];
  const snapshots: Snapshot[] = [];
  const used: Record<string, number> = {};
  const usedLlm: Record<string, number> = {};
  const usedDiff: Record<string, number> = {};
  let out: Transition = transition(definition, null, { type: 'start', now });
  for (let guard = 0; guard < 1_000; guard += 1) {
    snapshots.push(out.snapshot);
    stream.push(...out.events);
    for (const event of out.events) all.push({ type: 'emit', event: withoutStamp(event) });
    const effect = out.effect;
    all.push(effect);
    commands.push(effect);
    now += 10;
    if (out.effect.type === 'finish') {
      const events = stream.map(withoutStamp);
      return {
        result: out.effect.result,
        events,
        stream,
        names: events.map((e) => e.event),
        entered: events.filter((e) => e.event === 'state_enter').map((e) => e.state as string),
        commands,
        all,
        actions,
        snapshots,
        final: out.snapshot,
      };
    }
    let next: RunEvent;
    if (out.effect.type === 'sleep') next = { type: 'sleep_done', now };
    else if (out.effect.type === 'run_action') {
      actions.push(out.effect.input);
      const state = out.effect.input.state;
      if (script.interrupt && script.interrupt.atAction === actions.length) {
        const { event, error } = script.interrupt;
        next =
          event === 'action_failed'
            ? { type: event, failure: { messages: [error ?? 'activity failed'] }, now }
            : { type: event, now };
      } else {
        const index = used[state] ?? 0;
        used[state] = index + 1;
        next = { type: 'action_done', result: actionResult(take(script.actions?.[state], index)), now };
      }
    } else if (out.effect.type === 'evaluate_llm') {
      const state = out.effect.input.state;
      const index = usedLlm[state] ?? 0;
      usedLlm[state] = index + 1;
      next = { type: 'llm_done', result: evalResult(take(script.llm?.[state], index), state), now };
    } else if (out.effect.type === 'diff_stat') {
      const state = out.effect.input.state;
      const index = usedDiff[state] ?? 0;
      usedDiff[state] = index + 1;
      const reply = take(script.diffs?.[state], index);
      if (reply === undefined) throw new Error(`driver: no diff scripted for state "${state}"`);
      next =
        typeof reply === 'string'
          ? { type: 'diff_stat_done', stat: reply, now }
          : { type: 'diff_stat_error', error: reply.error, now };
    } else throw new Error(`driver: no scripted outcome for effect ${out.effect.type}`);
    if (out.snapshot.status !== 'running') throw new Error('driver: a finished run has no next transition');
    out = transition(definition, out.snapshot, next);
  }
  throw new Error('driver: run did not finish within 1000 steps');
}

/** A run's first transition. */
export function begin(definition: LoopDefinition, now = 0): Transition {
  return transition(definition, null, { type: 'start', now });
}

/** The next transition of a run that must still be running. */
export function next(definition: LoopDefinition, out: Transition, event: RunEvent): Transition {
  if (out.snapshot.status !== 'running') throw new Error(`the run already finished: ${JSON.stringify(out.effect)}`);
  return transition(definition, out.snapshot, event);
}

/** An event of the core, its fields read by name (tests look at fields of events they filtered by name). */
export type LoopEvent = KnownLoopEvent & { [field: string]: unknown };

/** An event without the core's numbering and time, for comparisons. */
export function withoutStamp(event: RunStreamEvent): LoopEvent {
  const { seq: _seq, ts: _ts, ...rest } = event;
  return rest as LoopEvent;
}

/** Events named `name`. */
export function eventsNamed(run: Run, name: string): LoopEvent[] {
  return run.events.filter((e) => e.event === name) as LoopEvent[];
}

/** The shell script of the n-th run_action (0-based). */
export function scriptOf(run: Run, index = 0): string {
  const input = run.actions[index];
  if (!input?.shell) throw new Error(`action ${index} is not a shell action`);
  return input.shell.script;
}

/** An interpolation scope with empty namespaces, overridable per test. */
export function scope(overrides: Partial<InterpolationScope> = {}): InterpolationScope {
  return {
    context: {},
    captured: {},
    prev: null,
    result: null,
    state: { name: 'check', iteration: 1 },
    loop: { name: 'test-loop', started_at: '2024-01-01T00:00:00.000Z', elapsed_ms: 0, elapsed: '0ms' },
    ...overrides,
  };
}

/** A paradigm document compiled without diagnostics (fails the test otherwise). */
export function compiled(doc: Record<string, unknown>): Record<string, unknown> {
  const out = compileParadigm(doc);
  if (!out.raw) throw new Error(`did not compile: ${JSON.stringify(out.diagnostics, null, 2)}`);
  expect(out.diagnostics).toEqual([]);
  return out.raw;
}

/** The diagnostics of a paradigm document that does not compile. */
export function problems(doc: Record<string, unknown>): Diagnostic[] {
  const out = compileParadigm(doc);
  expect(out.raw).toBeUndefined();
  expect(out.diagnostics.length).toBeGreaterThan(0);
  return out.diagnostics;
}

/**
 * Where a burst of quick actions must stop (fsm/run/burst.ts), in the pure core: before a state
 * that is not quick, a terminal, a budget, a person's pause, at its bounds, after a signal.
 */
import { describe, expect, it } from 'vitest';
import {
  burstAfter,
  endsBurst,
  mayBurst,
  mayBurstAfter,
  nextBurstAction,
  type BurstAfter,
} from '../../fsm/run/burst.js';
import { transition } from '../../fsm/run/transition.js';
import type { RunningSnapshot, Transition } from '../../fsm/run/snapshot.js';
import type { ActionResult } from '../../fsm/types.js';
import { validateLoop } from '../../fsm/definition/validate.js';

const bounds = { maxActions: 100, maxMs: 1000, localMaxS: 30 };
const ok: ActionResult = { output: '', stderr: '', exit_code: 0, duration_ms: 1 };

function defOf(raw: Record<string, unknown>) {
  const def = validateLoop({ name: 'b', default_timeout: 10, ...raw }).definition;
  if (!def) throw new Error('invalid test loop');
  return def;
}

/** The transition after the first state's action succeeded. */
function afterFirst(raw: Record<string, unknown>): { def: ReturnType<typeof defOf>; next: Transition } {
  const def = defOf(raw);
  const start = transition(def, null, { type: 'start', now: 1 });
  const next = transition(def, start.snapshot as RunningSnapshot, { type: 'action_done', result: ok, now: 2 });
  return { def, next };
}

describe('bursts', () => {
  it('go on to the next quick shell action', () => {
    const { def, next } = afterFirst({
      initial: 'a',
      states: { a: { action: 'true', next: 'b' }, b: { action: 'true', next: 'c' }, c: { terminal: true } },
    });
    expect(nextBurstAction(def, next, { actions: 1, ms: 1 }, bounds)).toMatchObject({ state: 'b', kind: 'shell' });
  });

  it('stop before a terminal, a state that is not quick, a prompt, at their bounds, and when the run ended', () => {
    const terminal = afterFirst({
      initial: 'a',
      states: { a: { action: 'true', next: 'z' }, z: { action: 'echo bye', terminal: true } },
    });
    expect(nextBurstAction(terminal.def, terminal.next, { actions: 1, ms: 1 }, bounds)).toBeUndefined();
    // ... unless the bounds take terminals (terminalsInBursts): its action is the burst's last.
    const withTerminals = { ...bounds, terminals: true };
    expect(nextBurstAction(terminal.def, terminal.next, { actions: 1, ms: 1 }, withTerminals)).toMatchObject({
      state: 'z',
    });
    const slow = afterFirst({
      initial: 'a',
      states: {
        a: { action: 'true', next: 'b' },
        b: { action: 'true', timeout: 60, next: 'z' },
        z: { terminal: true },
      },
    });
    expect(nextBurstAction(slow.def, slow.next, { actions: 1, ms: 1 }, bounds)).toBeUndefined();
    const prompt = afterFirst({
      initial: 'a',
      states: {
        a: { action: 'true', next: 'b' },
        b: { action: 'fix it', action_type: 'prompt', next: 'z' },
        z: { terminal: true },
      },
    });
    expect(nextBurstAction(prompt.def, prompt.next, { actions: 1, ms: 1 }, bounds)).toBeUndefined();
    const chain = afterFirst({
      initial: 'a',
      states: { a: { action: 'true', next: 'b' }, b: { action: 'true', next: 'z' }, z: { terminal: true } },
    });
    expect(nextBurstAction(chain.def, chain.next, { actions: 100, ms: 1 }, bounds)).toBeUndefined();
    expect(nextBurstAction(chain.def, chain.next, { actions: 1, ms: 1000 }, bounds)).toBeUndefined();
    const ended = afterFirst({ initial: 'a', states: { a: { action: 'true', next: 'z' }, z: { terminal: true } } });
    expect(ended.next.effect.type).toBe('finish');
    expect(nextBurstAction(ended.def, ended.next, { actions: 1, ms: 1 }, bounds)).toBeUndefined();
  });

  it('go on through a state the run saw quick, within the timeout the burst allows it, but not through a guarded one', () => {
    const { def, next } = afterFirst({
      initial: 'a',
      states: {
        a: { action: 'true', next: 'b' },
        b: { action: 'npm test', timeout: 1800, next: 'c' },
        c: { action: 'fix it', action_type: 'prompt', next: 'z' },
        z: { terminal: true },
      },
    });
    expect(nextBurstAction(def, next, { actions: 1, ms: 1 }, bounds)).toBeUndefined();
    const learned = { ...bounds, learned: { b: 1800 } };
    expect(nextBurstAction(def, next, { actions: 1, ms: 1 }, learned)).toMatchObject({ state: 'b', timeout_s: 1800 });
    // Allowed less than its timeout (another action of it had a shorter one): not in this burst.
    expect(nextBurstAction(def, next, { actions: 1, ms: 1 }, { ...bounds, learned: { b: 900 } })).toBeUndefined();
    // The flush's bounds hold for it as for any.
    expect(nextBurstAction(def, next, { actions: 1, ms: 1000 }, learned)).toBeUndefined();
    // Only its own state's record counts (not an inherited name of a plain object).
    expect(
      nextBurstAction(def, next, { actions: 1, ms: 1 }, { ...bounds, learned: { toString: 1800 } }),
    ).toBeUndefined();
    const guarded = afterFirst({
      initial: 'a',
      states: {
        a: { action: 'true', next: 'b' },
        b: { action: 'npm test', timeout: 1800, tamper_guard: 'fail', next: 'z' },
        z: { terminal: true },
      },
    });
    expect(
      nextBurstAction(guarded.def, guarded.next, { actions: 1, ms: 1 }, { ...bounds, learned: { b: 1800 } }),
    ).toBeUndefined();
  });

  it('do not start under a budget, or in a run a person paused or steered', () => {
    const def = defOf({
      initial: 'a',
      budget: { max_cost_usd: 1 },
      states: { a: { action: 'true', next: 'z' }, z: { terminal: true } },
    });
    const start = transition(def, null, { type: 'start', now: 1 });
    if (start.effect.type !== 'run_action') throw new Error('expected an action');
    expect(mayBurst(def, start.snapshot as RunningSnapshot, start.effect.input, 30)).toBe(false);
    const free = defOf({ initial: 'a', states: { a: { action: 'true', next: 'z' }, z: { terminal: true } } });
    const run = transition(free, null, { type: 'start', now: 1 });
    if (run.effect.type !== 'run_action') throw new Error('expected an action');
    const snapshot = run.snapshot as RunningSnapshot;
    expect(mayBurst(free, snapshot, run.effect.input, 30)).toBe(true);
    expect(mayBurst(free, snapshot, run.effect.input, 0)).toBe(false);
    expect(mayBurst(free, { ...snapshot, pause: { by: 'ann', since_ms: 1 } }, run.effect.input, 30)).toBe(false);
  });

  it('end after a result the workflow must see: a stdout signal or a rate limit', () => {
    expect(endsBurst(ok)).toBe(false);
    expect(endsBurst({ ...ok, stdout_signal: { kind: 'stop', payload: 'x' } } as unknown as ActionResult)).toBe(true);
    expect(
      endsBurst({ ...ok, rate_limit: { kind: 'rate_limit', message: 'slow down' } } as unknown as ActionResult),
    ).toBe(true);
  });
});

describe('quick actions after an action, in its activity', () => {
  const FIX_CHECK = {
    initial: 'fix',
    states: {
      fix: { action: 'fix it', action_type: 'prompt', timeout: 1800, next: 'check' },
      check: { action: 'pytest', timeout: 600, on_yes: 'done', on_no: 'fix' },
      done: { terminal: true },
    },
  };

  /** What the fix's activity is given: the snapshot whose effect is the fix. */
  function afterFix(raw: Record<string, unknown>, learned?: Record<string, number>): BurstAfter {
    const definition = defOf(raw);
    const start = transition(definition, null, { type: 'start', now: 1 });
    return {
      definition,
      snapshot: start.snapshot as RunningSnapshot,
      bounds: { ...bounds, ...(learned ? { learned } : {}) },
    };
  }

  it('are asked for only where the state routes to a quick shell state or one the run saw quick', () => {
    const fresh = afterFix(FIX_CHECK);
    // pytest's 600 s is beyond the quick lane until the run saw it quick.
    expect(mayBurstAfter(fresh.definition, 'fix', fresh.bounds)).toBe(false);
    const seen = afterFix(FIX_CHECK, { check: 600 });
    expect(mayBurstAfter(seen.definition, 'fix', seen.bounds)).toBe(true);
    const quick = afterFix({
      ...FIX_CHECK,
      states: { ...FIX_CHECK.states, check: { ...FIX_CHECK.states.check, timeout: 20 } },
    });
    expect(mayBurstAfter(quick.definition, 'fix', quick.bounds)).toBe(true);
    // A prompt or a state without an action never runs in a burst.
    const toPrompt = afterFix({
      initial: 'fix',
      states: {
        fix: { action: 'fix it', action_type: 'prompt', next: 'judge' },
        judge: { action: 'judge it', action_type: 'prompt', next: 'done' },
        done: { terminal: true },
      },
    });
    expect(mayBurstAfter(toPrompt.definition, 'fix', toPrompt.bounds)).toBe(false);
    expect(mayBurstAfter(toPrompt.definition, 'judge', toPrompt.bounds)).toBe(false);
    // A terminal's quick action (a closing message) only where the bounds take terminals.
    const toClosing = afterFix({
      initial: 'fix',
      states: {
        fix: { action: 'fix it', action_type: 'prompt', next: 'gave_up' },
        gave_up: { action: 'echo gave up', timeout: 10, terminal: true },
      },
    });
    expect(mayBurstAfter(toClosing.definition, 'fix', toClosing.bounds)).toBe(false);
    expect(mayBurstAfter(toClosing.definition, 'fix', { ...toClosing.bounds, terminals: true })).toBe(true);
    // A target known only at run time may be one.
    const dynamic = afterFix({
      initial: 'fix',
      context: { to: 'done' },
      states: { fix: { action: 'fix it', action_type: 'prompt', next: '${context.to}' }, done: { terminal: true } },
    });
    expect(mayBurstAfter(dynamic.definition, 'fix', dynamic.bounds)).toBe(true);
  });

  it('start with the state the action routes to, in the snapshot after its result', () => {
    const after = afterFix(FIX_CHECK, { check: 600 });
    const next = burstAfter(after, { type: 'action_done', result: ok, now: 2 });
    expect(next?.first).toMatchObject({ state: 'check', kind: 'shell' });
    expect(next?.snapshot).toMatchObject({ current: 'check', phase: 'action' });
  });

  it('do not start after a result the workflow must see first, nor where the next state may not burst', () => {
    const after = afterFix(FIX_CHECK, { check: 600 });
    const signal: ActionResult = { ...ok, stdout_signal: { kind: 'handoff', payload: 'x' } };
    expect(burstAfter(after, { type: 'action_done', result: signal, now: 2 })).toBeUndefined();
    expect(burstAfter(afterFix(FIX_CHECK), { type: 'action_done', result: ok, now: 2 })).toBeUndefined();
    // The run ends with the action (a terminal comes next): nothing follows it in the activity.
    const last = afterFix({
      initial: 'fix',
      states: { fix: { action: 'fix it', action_type: 'prompt', next: 'done' }, done: { terminal: true } },
    });
    expect(burstAfter(last, { type: 'action_done', result: ok, now: 2 })).toBeUndefined();
  });
});

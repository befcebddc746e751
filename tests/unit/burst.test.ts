/**
 * Where a burst of quick actions must stop (fsm/run/burst.ts), in the pure core: before a state
 * that is not quick, a terminal, a budget, a person's pause, at its bounds, after a signal.
 */
import { describe, expect, it } from 'vitest';
import { endsBurst, mayBurst, nextBurstAction } from '../../fsm/run/burst.js';
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

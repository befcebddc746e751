/**
 * A person steering a run (fsm/run/control.ts): what pause, unpause and steer facts mean for the
 * core — when a paused run holds, what it enters when let go, where a steer sends it (with context
 * values), what is refused — and a rerun's first transition from an earlier snapshot (`fork`).
 */
import { describe, expect, it } from 'vitest';
import { control, refuseControl, type ControlFact } from '../../fsm/run/control.js';
import { transition } from '../../fsm/run/transition.js';
import type { RunningSnapshot, Transition } from '../../fsm/run/snapshot.js';
import type { ActionResult } from '../../fsm/types.js';
import { begin, def, loop, next, withoutStamp } from './helpers.js';

const ok = (output = ''): ActionResult => ({ output, stderr: '', exit_code: 0, duration_ms: 1 });
const definition = def(
  loop(
    {
      plan: { action: 'echo plan', next: 'build' },
      build: { action: 'echo "${context.target}"', next: 'check' },
      check: { action: 'true', next: 'done' },
      review: { action: 'echo review', next: 'done' },
    },
    { context: { target: 'all', mode: 'fast' } },
  ),
);

/** Apply a control fact to a running transition, as the workflow's update handler does. */
function apply(t: Transition, fact: ControlFact): Transition {
  const out = control(definition, t.snapshot as RunningSnapshot, fact);
  return { ...t, snapshot: out.snapshot, events: out.events } as Transition;
}

const names = (t: Transition) => t.events.map((e) => e.event);

describe('pause and unpause', () => {
  it('a paused run finishes its action, routes, then holds before the next state', () => {
    let t = begin(definition, 0);
    expect(t.snapshot.current).toBe('plan');
    t = apply(t, { type: 'pause', by: 'ann@box', now: 10 });
    expect(t.events.map(withoutStamp)).toEqual([{ event: 'paused', state: 'plan', by: 'ann@box' }]);
    // The action in flight was not touched: the effect is still plan's action.
    expect(t.effect.type).toBe('run_action');
    t = next(definition, t, { type: 'action_done', result: ok(), now: 20 });
    expect(names(t)).toEqual(['action_complete', 'route']);
    expect(t.snapshot).toMatchObject({ phase: 'paused', current: 'plan', held: { name: 'build' } });
    expect(t.effect).toEqual({ type: 'await_release', state: 'plan' });
    t = apply(t, { type: 'unpause', by: 'bob@box', now: 70 });
    expect(t.events.map(withoutStamp)).toEqual([{ event: 'unpaused', state: 'plan', by: 'bob@box', paused_ms: 60 }]);
    t = next(definition, t, { type: 'released', now: 80 });
    expect(t.snapshot).toMatchObject({ current: 'build', phase: 'action' });
    expect(t.snapshot.held).toBeUndefined();
    expect(names(t)).toEqual(['state_enter', 'action_start']);
  });

  it('an unpause before the run holds withdraws the pause: it goes on without waiting', () => {
    let t = apply(begin(definition, 0), { type: 'pause', by: 'ann@box', now: 10 });
    t = apply(t, { type: 'unpause', by: 'ann@box', now: 15 });
    t = next(definition, t, { type: 'action_done', result: ok(), now: 20 });
    expect(t.snapshot.current).toBe('build');
    expect(t.effect.type).toBe('run_action');
  });

  it('the loop timeout ends a holding run', () => {
    let t = apply(begin(definition, 0), { type: 'pause', by: 'ann@box', now: 10 });
    t = next(definition, t, { type: 'action_done', result: ok(), now: 20 });
    t = next(definition, t, { type: 'timeout', now: 99 });
    expect(t.effect.type).toBe('finish');
    expect(t.snapshot).toMatchObject({ status: 'done', outcome: { terminated_by: 'timeout' } });
  });

  it('refuses a second pause and an unpause of a run that is not paused', () => {
    const t = begin(definition, 0);
    expect(refuseControl(definition, t.snapshot, { type: 'unpause', by: 'a', now: 0 })).toMatch(/is not paused/);
    const paused = apply(t, { type: 'pause', by: 'ann@box', now: 1 });
    expect(refuseControl(definition, paused.snapshot, { type: 'pause', by: 'b', now: 2 })).toMatch(
      /already paused \(by ann@box\)/,
    );
  });
});

describe('steer', () => {
  it('the next transition goes to the steered state instead of the routed one, with context values set', () => {
    let t = apply(begin(definition, 0), {
      type: 'steer',
      to: 'review',
      by: 'ann@box',
      note: 'skip the build',
      context: { target: 'docs' },
      now: 5,
    });
    expect(t.events).toEqual([]);
    t = next(definition, t, { type: 'action_done', result: ok(), now: 20 });
    expect(t.events.map(withoutStamp).filter((e) => e.event === 'route' || e.event === 'steered')).toEqual([
      { event: 'route', from: 'plan', to: 'build' },
      {
        event: 'steered',
        from: 'plan',
        to: 'review',
        replaced: 'build',
        by: 'ann@box',
        note: 'skip the build',
        context: ['target'],
      },
    ]);
    expect(t.snapshot.current).toBe('review');
    expect(t.snapshot.context).toEqual({ target: 'docs' });
    expect(t.snapshot.dataContext).toContain('target');
    expect(t.snapshot.steer).toBeUndefined();
  });

  it('steered context values are what later templates see', () => {
    let t = apply(begin(definition, 0), { type: 'steer', to: 'build', by: 'a@h', context: { target: 'docs' }, now: 5 });
    t = next(definition, t, { type: 'action_done', result: ok(), now: 20 });
    expect(t.effect.type).toBe('run_action');
    expect(JSON.stringify(t.effect)).toContain('docs');
  });

  it('a steer lets a holding run go at once, to the steered state', () => {
    let t = apply(begin(definition, 0), { type: 'pause', by: 'ann@box', now: 1 });
    t = next(definition, t, { type: 'action_done', result: ok(), now: 2 });
    expect(t.snapshot.phase).toBe('paused');
    t = apply(t, { type: 'steer', to: 'check', by: 'bob@box', now: 3 });
    expect(t.events.map((e) => e.event)).toEqual(['unpaused']);
    expect(t.snapshot.pause).toBeUndefined();
    t = next(definition, t, { type: 'released', now: 4 });
    expect(t.events.map(withoutStamp)[0]).toEqual({
      event: 'steered',
      from: 'plan',
      to: 'check',
      replaced: 'build',
      by: 'bob@box',
    });
    expect(t.snapshot.current).toBe('check');
  });

  it('a steer to a terminal state ends the run there', () => {
    let t = apply(begin(definition, 0), { type: 'steer', to: 'done', by: 'a@h', now: 1 });
    t = next(definition, t, { type: 'action_done', result: ok(), now: 2 });
    expect(t.effect.type).toBe('finish');
    expect(t.snapshot).toMatchObject({ status: 'done', outcome: { final_state: 'done', terminated_by: 'terminal' } });
  });

  it('refuses an unknown state or context key, saying what was meant', () => {
    const s = begin(definition, 0).snapshot;
    expect(refuseControl(definition, s, { type: 'steer', to: 'reviw', by: 'a', now: 0 })).toBe(
      'loop "test-loop" has no state "reviw" (did you mean "review"?); its states: plan, build, check, review, done',
    );
    expect(
      refuseControl(definition, s, { type: 'steer', to: 'review', context: { targte: 'x' }, by: 'a', now: 0 }),
    ).toBe('loop "test-loop" has no context key "targte" (did you mean "target"?); its keys: target, mode');
    expect(refuseControl(definition, s, { type: 'steer', to: 'review', by: 'a', now: 0 })).toBeUndefined();
  });

  it("refuses a value a typed parameter's type does not take, as the start of a run does", () => {
    const typed = { ...definition, parameters: { target: { type: 'integer' as const, required: false } } };
    const s = begin(typed, 0).snapshot;
    expect(refuseControl(typed, s, { type: 'steer', to: 'review', context: { target: 'zz' }, by: 'a', now: 0 })).toBe(
      'parameter "target" of loop "test-loop": expected an integer, got "zz"',
    );
    expect(
      refuseControl(typed, s, { type: 'steer', to: 'review', context: { target: '7' }, by: 'a', now: 0 }),
    ).toBeUndefined();
  });

  it('refuses every fact once the run has ended', () => {
    let t: Transition = begin(definition, 0);
    t = next(definition, t, { type: 'cancel', now: 1 });
    expect(refuseControl(definition, t.snapshot, { type: 'pause', by: 'a', now: 2 })).toMatch(/already ended/);
  });
});

describe('rerun (a fork of an earlier snapshot)', () => {
  it('starts at the snapshot state with its counters, the edits set, and loop_fork first', () => {
    let t = begin(definition, 0);
    t = next(definition, t, { type: 'action_done', result: ok('p'), now: 1 });
    const snapshot = { ...t.snapshot, pause: { by: 'x', since_ms: 1 } } as RunningSnapshot;
    const forked = transition(definition, null, {
      type: 'start',
      now: 100,
      resumeFrom: { runId: 'old-run', snapshot, fork: { event: 7, context: { mode: 'slow' } } },
    });
    expect(withoutStamp(forked.events[0]!)).toEqual({
      event: 'loop_fork',
      loop: 'test-loop',
      forked_from: 'old-run@7',
      state: 'build',
      iteration: 1,
      context: ['mode'],
    });
    expect(forked.snapshot).toMatchObject({ current: 'build', context: { mode: 'slow' }, seq: forked.events.length });
    expect(forked.snapshot.pause).toBeUndefined();
    expect(forked.effect.type).toBe('run_action');
  });
});

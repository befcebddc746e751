/**
 * Human states in the pure core: the question asked (`await_human`, `human_wait`), the answers
 * (`human_answered`) routed and captured, the deadline (`human_timeout`), and validation.
 */
import { describe, expect, it } from 'vitest';
import { transition } from '../../fsm/run/transition.js';
import type { RunEvent, RunningSnapshot, Transition } from '../../fsm/run/snapshot.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { jsonTypeMismatch, replyMismatch } from '../../fsm/human.js';
import { simulate } from '../../fsm/tools/simulate.js';
import { def, loop } from './helpers.js';

const T0 = Date.UTC(2026, 10, 25, 12);

function start(states: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const d = def(loop(states, extra));
  return { d, t: transition(d, null, { type: 'start', now: T0 }) };
}

function next(d: ReturnType<typeof def>, t: Transition, fact: RunEvent): Transition {
  if (t.snapshot.status !== 'running') throw new Error('the run has ended');
  return transition(d, t.snapshot as RunningSnapshot, fact);
}

const names = (t: Transition) => t.events.map((e) => e.event);

const review = {
  action_type: 'human',
  prompt: 'Apply ${context.plan}?',
  timeout: 3600,
  on_yes: 'done',
  on_no: 'again',
  on_edit: 'edited',
};
const rest = {
  again: { action: 'echo again', next: 'done' },
  edited: { action: 'echo "${captured.review.edit}"', next: 'done' },
};

describe('human states: the question', () => {
  it('asks with the prompt rendered, a deadline, and waits in phase human', () => {
    const { t } = start({ review, ...rest }, { context: { plan: 'the plan' } });
    expect(names(t)).toEqual(['loop_start', 'state_enter', 'human_wait']);
    expect(t.events[2]).toMatchObject({
      state: 'review',
      prompt: 'Apply the plan?',
      ask: 'approval',
      deadline: new Date(T0 + 3_600_000).toISOString(),
    });
    expect(t.effect).toEqual({
      type: 'await_human',
      state: 'review',
      prompt: 'Apply the plan?',
      ask: 'approval',
      deadline_ms: T0 + 3_600_000,
    });
    expect(t.snapshot).toMatchObject({
      phase: 'human',
      human: { state: 'review', since_ms: T0, deadline_ms: T0 + 3_600_000 },
    });
  });

  it("carries the notify hook: the state's, else the loop's", () => {
    expect(
      start({ review: { ...review, notify: 'echo s' }, ...rest }, { context: { plan: 'p' }, notify: 'echo l' }).t
        .effect,
    ).toMatchObject({ notify: 'echo s' });
    expect(start({ review, ...rest }, { context: { plan: 'p' }, notify: 'echo l' }).t.effect).toMatchObject({
      notify: 'echo l',
    });
  });

  it("a prompt that cannot be rendered is the state's error", () => {
    const { t } = start({ review: { ...review, prompt: 'x ${prev.output}', on_error: 'done' }, ...rest });
    expect(names(t)).toContain('action_error');
    expect(t.effect.type).toBe('finish');
  });
});

describe('human states: answers', () => {
  const { d, t } = start({ review, ...rest }, { context: { plan: 'p' } });

  it('yes routes on_yes and captures answer, by, at; human_answer has by and latency', () => {
    const a = next(d, t, { type: 'human_answered', reply: { kind: 'yes' }, by: 'ann@box', now: T0 + 5000 });
    expect(names(a)).toEqual(['human_answer', 'evaluate', 'route', 'state_enter', 'loop_complete']);
    expect(a.events[0]).toMatchObject({ state: 'review', verdict: 'yes', by: 'ann@box', latency_ms: 5000 });
    expect(a.events[1]).toMatchObject({ type: 'human', verdict: 'yes' });
    expect(a.events[2]).toMatchObject({ from: 'review', to: 'done', verdict: 'yes' });
    expect(a.snapshot.captured.review).toMatchObject({
      answer: 'yes',
      by: 'ann@box',
      at: new Date(T0 + 5000).toISOString(),
    });
    expect(a.snapshot.human).toBeUndefined();
  });

  it('no routes on_no; edit routes on_edit with the text in .edit', () => {
    const no = next(d, t, { type: 'human_answered', reply: { kind: 'no' }, by: 'b@h', now: T0 + 1 });
    expect(no.events.find((e) => e.event === 'route')).toMatchObject({ to: 'again', verdict: 'no' });
    const edit = next(d, t, {
      type: 'human_answered',
      reply: { kind: 'edit', text: 'do less' },
      by: 'b@h',
      now: T0 + 1,
    });
    expect(edit.events.find((e) => e.event === 'route')).toMatchObject({ to: 'edited', verdict: 'edit' });
    expect(edit.snapshot.captured.review).toMatchObject({ answer: 'edit', edit: 'do less', output: 'do less' });
    expect(edit.effect).toMatchObject({ type: 'run_action' });
  });

  it('approvalEdit: a plain yes or no captures edit as the empty string; without the rule, no edit', () => {
    for (const kind of ['yes', 'no'] as const) {
      const ruled = next(d, t, { type: 'human_answered', reply: { kind }, by: 'b@h', now: T0 + 1, approvalEdit: true });
      expect(ruled.snapshot.captured.review).toMatchObject({ answer: kind, edit: '' });
      const older = next(d, t, { type: 'human_answered', reply: { kind }, by: 'b@h', now: T0 + 1 });
      expect(older.snapshot.captured.review).not.toHaveProperty('edit');
    }
    const edit = next(d, t, {
      type: 'human_answered',
      reply: { kind: 'edit', text: 'do less' },
      by: 'b@h',
      now: T0 + 1,
      approvalEdit: true,
    });
    expect(edit.snapshot.captured.review).toMatchObject({ edit: 'do less' });
  });

  it('a choice is its own verdict; text and json give yes with the answer captured', () => {
    const c = start({
      pick: {
        action_type: 'human',
        prompt: 'which?',
        ask: 'choice',
        options: ['ship', 'drop'],
        on_ship: 'done',
        on_drop: 'done',
      },
    });
    const chosen = next(c.d, c.t, {
      type: 'human_answered',
      reply: { kind: 'choice', option: 'drop' },
      by: 'x@y',
      now: T0 + 1,
    });
    expect(chosen.events.find((e) => e.event === 'route')).toMatchObject({ verdict: 'drop' });
    expect(chosen.snapshot.captured.pick).toMatchObject({ answer: 'drop' });
    const j = start({ cfg: { action_type: 'human', prompt: 'cfg?', ask: 'json', capture: 'cfgv', next: 'done' } });
    const given = next(j.d, j.t, {
      type: 'human_answered',
      reply: { kind: 'json', value: { n: 2 } },
      by: 'x@y',
      now: T0 + 1,
    });
    expect(given.snapshot.captured.cfgv).toMatchObject({ answer: { n: 2 }, output: '{"n":2}' });
    expect(given.events.find((e) => e.event === 'route')).toMatchObject({ to: 'done', verdict: 'yes' });
  });
});

describe('human states: the deadline', () => {
  it('routes on_timeout', () => {
    const { d, t } = start({ review: { ...review, on_timeout: 'again' }, ...rest }, { context: { plan: 'p' } });
    const late = next(d, t, { type: 'human_timeout', now: T0 + 3_600_000 });
    expect(names(late).slice(0, 3)).toEqual(['human_timeout', 'evaluate', 'route']);
    expect(late.events[0]).toMatchObject({ state: 'review', waited_ms: 3_600_000 });
    expect(late.events[2]).toMatchObject({ to: 'again', verdict: 'timeout' });
  });

  it('defaults to the no route', () => {
    const { d, t } = start({ review, ...rest }, { context: { plan: 'p' } });
    const late = next(d, t, { type: 'human_timeout', now: T0 + 3_600_000 });
    expect(late.events.find((e) => e.event === 'route')).toMatchObject({ to: 'again', verdict: 'timeout' });
  });

  it('ends the run with an error when nothing routes it', () => {
    const { d, t } = start({ pick: { action_type: 'human', prompt: 'q', ask: 'text', timeout: 5, next: 'done' } });
    const late = next(d, t, { type: 'human_timeout', now: T0 + 5000 });
    expect(late.snapshot).toMatchObject({ status: 'done', outcome: { terminated_by: 'error' } });
    expect(late.snapshot.status === 'done' && late.snapshot.outcome.error).toMatch(
      /nobody answered state "pick" in time/,
    );
  });
});

describe('human states: fitting answers', () => {
  const state = def(loop({ review, ...rest }, { context: { plan: 'p' } })).states.review!;
  it('refuses answers of another kind, unknown options, edits without on_edit', () => {
    expect(replyMismatch(state, { kind: 'yes' })).toBeUndefined();
    expect(replyMismatch(state, { kind: 'text', text: 'x' })).toMatch(/asks for an approval/);
    const { on_edit: _e, ...withoutEdit } = review;
    const noEdit = def(loop({ review: withoutEdit, ...rest }, { context: { plan: 'p' } })).states.review!;
    expect(replyMismatch(noEdit, { kind: 'edit', text: 'x' })).toMatch(/takes no edits/);
    const choice = def(
      loop({
        p: { action_type: 'human', prompt: 'q', ask: 'choice', options: ['a', 'b'], on_a: 'done', on_b: 'done' },
      }),
    ).states.p!;
    expect(replyMismatch(choice, { kind: 'choice', option: 'c' })).toMatch(
      /"c" is not an option: answer --choice a\|b/,
    );
  });
  it("checks a JSON answer's top-level type and required keys", () => {
    expect(jsonTypeMismatch({ type: 'object', required: ['n'] }, { n: 1 })).toBeUndefined();
    expect(jsonTypeMismatch({ type: 'object' }, [1])).toMatch(/type object, not array/);
    expect(jsonTypeMismatch({ type: 'object', required: ['n'] }, {})).toMatch(/misses required key n/);
  });
});

describe('human states: validation', () => {
  const messages = (raw: Record<string, unknown>) =>
    validateLoop(raw).diagnostics.map((x) => `${x.severity}: ${x.message}`);
  it('accepts the alias human_approval', () => {
    expect(
      validateLoop(
        loop(
          { review: { ...review, action_type: 'human_approval', on_timeout: 'done' }, ...rest },
          { context: { plan: 'p' } },
        ),
      ).definition,
    ).toBeDefined();
  });
  it('warns without a timeout', () => {
    const { timeout: _t, ...noTimeout } = review;
    expect(messages(loop({ review: noTimeout, ...rest }, { context: { plan: 'p' } }))).toContain(
      'warning: a human state without timeout: waits for an answer as long as the loop runs',
    );
  });
  it('refuses a missing prompt, choice without options, human fields elsewhere, an action', () => {
    const out = messages(
      loop({
        a: { action_type: 'human', ask: 'choice', timeout: 5, next: 'done', action: 'echo' },
        b: { action: 'echo', options: ['x'], next: 'done' },
      }),
    );
    expect(out).toEqual(
      expect.arrayContaining([
        'error: a human state needs prompt: (the question)',
        'error: ask: choice needs options:',
        'error: options: is for human states (action_type: human)',
        'error: a human state asks a person; it has no action:',
      ]),
    );
  });
  it('suggests the option meant for a misspelt ask:', () => {
    expect(
      messages(loop({ a: { action_type: 'human', prompt: 'q', ask: 'choise', next: 'done' } })).join('\n'),
    ).toMatch(/did you mean "choice"/);
  });
  it('warns about answers nothing routes', () => {
    expect(messages(loop({ a: { action_type: 'human', prompt: 'q', timeout: 5, on_yes: 'done' } })).join('\n')).toMatch(
      /"no" of this human state has no route/,
    );
  });
});

describe('human states: simulate', () => {
  it('a person answers yes when the scenario passes, no when it fails', () => {
    const d = def(loop({ review: { ...review, on_timeout: 'done' }, ...rest }, { context: { plan: 'p' } }));
    expect(simulate(d, 'all-pass', 20).steps[0]).toMatchObject({ state: 'review', verdict: 'yes', to: 'done' });
    expect(simulate(d, 'all-fail', 20).steps[0]).toMatchObject({ state: 'review', verdict: 'no', to: 'again' });
  });

  it('names a person as the judge of a human state, not an evaluator of an action it does not have', () => {
    const d = def(loop({ review: { ...review, on_timeout: 'done' }, ...rest }, { context: { plan: 'p' } }));
    expect(simulate(d, 'all-pass', 20).steps[0]).toMatchObject({ state: 'review', evaluator: 'human' });
  });
});

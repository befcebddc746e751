/** Sub-loop states and parameters in the pure core: inputs, verdicts, bindings, validation. */
import { describe, expect, it } from 'vitest';
import { bindParameters, coerceParameter } from '../../fsm/definition/parameters.js';
import type { RunStreamEvent } from '../../fsm/run/events.js';
import { transition } from '../../fsm/run/transition.js';
import { childStart, subloopTimeoutError, subloopVerdict } from '../../fsm/run/subloop.js';
import { renderShell } from '../../fsm/shell-render.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { begin, def, loop, next } from './helpers.js';

const childResult = (over: Partial<ExecutionResult> = {}): ExecutionResult => ({
  loop: 'child',
  final_state: 'done',
  iterations: 1,
  steps: 2,
  terminated_by: 'terminal',
  failure: false,
  duration_ms: 5,
  captured: {},
  ...over,
});

const parent = (state: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  def(
    loop(
      {
        measure: { action: 'echo 42', capture: 'count', next: 'sub' },
        sub: { loop: 'child', on_success: 'done', on_failure: 'fail', on_error: 'broken', ...state },
        fail: { terminal: true, failure: true },
        broken: { terminal: true, failure: true },
      },
      extra,
    ),
  );

/** Run the parent to its sub-loop state; returns the snapshot and the run_loop command. */
function toSubloop(d: ReturnType<typeof def>) {
  let out = begin(d, 1000);
  out = next(d, out, {
    type: 'action_done',
    result: { output: '42\n', stderr: '', exit_code: 0, duration_ms: 3 },
    now: 1010,
  });
  return { at: out, snapshot: out.snapshot, command: out.effect, events: out.events };
}

const eventNamed = (events: RunStreamEvent[], name: string) => events.find((e) => e.event === name);

describe('sub-loop verdicts', () => {
  it.each([
    [{ terminated_by: 'terminal' as const, failure: false }, 'yes'],
    [{ terminated_by: 'terminal' as const, failure: true }, 'no'],
    [{ terminated_by: 'max_iterations' as const }, 'no'],
    [{ terminated_by: 'max_steps' as const }, 'no'],
    [{ terminated_by: 'timeout' as const }, 'no'],
    [{ terminated_by: 'error' as const }, 'error'],
    [{ terminated_by: 'cancelled' as const }, 'error'],
  ])('%o → %s', (over, verdict) => {
    expect(subloopVerdict(childResult(over))).toBe(verdict);
  });

  it.each([
    [childResult(), 'done'],
    [childResult({ failure: true, final_state: 'gave_up' }), 'fail'],
    [childResult({ terminated_by: 'max_iterations', final_state: 'check' }), 'fail'],
    [childResult({ terminated_by: 'error', error: 'boom' }), 'broken'],
  ])('routes the parent by the child outcome (%#)', (result, to) => {
    const d = parent({});
    const { at, snapshot, command } = toSubloop(d);
    expect(command).toMatchObject({ type: 'run_loop', input: { state: 'sub', loop: 'child', step: 2 } });
    expect(snapshot.phase).toBe('subloop');
    const out = next(d, at, { type: 'subloop_done', result, timedOut: false, now: 2000 });
    expect(eventNamed(out.events, 'route')).toMatchObject({ from: 'sub', to });
  });

  it('a child that cannot run routes on_error with the reason', () => {
    const d = parent({});
    const { at } = toSubloop(d);
    const out = next(d, at, {
      type: 'subloop_unavailable',
      why: { reason: 'invalid', error: 'no loop named "child"' },
      now: 2000,
    });
    expect(out.snapshot.current).toBe('broken');
    expect(eventNamed(out.events, 'action_error')).toMatchObject({ state: 'sub', error: 'no loop named "child"' });
  });

  it.each([
    [
      { reason: 'too_deep' as const, loop: 'child', depth: 9, limit: 8 },
      'sub-loop "child" would nest 9 loops deep (the limit is 8)',
    ],
    [
      { reason: 'load_failed' as const, loop: 'child', failure: { messages: ['Activity task failed', 'EACCES'] } },
      'could not load sub-loop "child": Activity task failed: EACCES',
    ],
  ])('the core words why a child could not run (%#)', (why, message) => {
    const { at } = toSubloop(parent({}));
    const out = next(parent({}), at, { type: 'subloop_unavailable', why, now: 2000 });
    expect(eventNamed(out.events, 'action_error')).toMatchObject({ error: expect.stringContaining(message) });
  });

  it('a child workflow that failed, or was stopped by the state timeout before it reported, is an error', () => {
    const d = parent({ timeout: 30 });
    const failed = next(d, toSubloop(d).at, {
      type: 'subloop_failed',
      loop: 'child',
      failure: { messages: ['Child Workflow execution failed', 'boom'] },
      timedOut: false,
      now: 2000,
    });
    expect(eventNamed(failed.events, 'action_error')).toMatchObject({
      error: 'sub-loop "child" failed: Child Workflow execution failed: boom',
    });
    const limited = next(d, toSubloop(d).at, {
      type: 'subloop_failed',
      loop: 'child',
      failure: { messages: ['cancelled'] },
      timedOut: true,
      now: 2000,
    });
    expect(eventNamed(limited.events, 'action_error')).toMatchObject({
      error: `sub-loop "child" failed: ${subloopTimeoutError(30)}`,
    });
  });

  it('without on_error, a failed child ends the parent with an error naming the state', () => {
    const d = def(loop({ sub: { loop: 'child', on_success: 'done', on_failure: 'done' } }));
    const out = next(d, begin(d), {
      type: 'subloop_done',
      result: childResult({ terminated_by: 'error', error: 'exploded' }),
      timedOut: false,
      now: 10,
    });
    expect(out.effect).toMatchObject({ type: 'finish', result: { terminated_by: 'error' } });
    expect(out.effect.type === 'finish' && out.effect.result.error).toContain(
      'state "sub": sub-loop "child" failed: exploded',
    );
  });
});

describe('what the child gets', () => {
  it('context_passthrough passes context and captured in, and merges captured back', () => {
    const d = parent({ context_passthrough: true }, { context: { target: 3 } });
    const { at, command } = toSubloop(d);
    expect(command).toMatchObject({
      input: { passthrough: { context: { target: 3 }, captured: { count: { output: '42' } } } },
    });
    const out = next(d, at, {
      type: 'subloop_done',
      result: childResult({ captured: { fixed: { output: 'yes', stderr: '', exit_code: 0, duration_ms: 1 } } }),
      timedOut: false,
      now: 2000,
    });
    expect(Object.keys(out.snapshot.captured).sort()).toEqual(['count', 'fixed']);
  });

  it('without passthrough the child is isolated: nothing goes in, nothing comes back', () => {
    const d = parent({});
    const { at, command } = toSubloop(d);
    expect(command.type === 'run_loop' && command.input.passthrough).toBeUndefined();
    const out = next(d, at, {
      type: 'subloop_done',
      result: childResult({ captured: { fixed: { output: 'yes', stderr: '', exit_code: 0, duration_ms: 1 } } }),
      timedOut: false,
      now: 2000,
    });
    expect(Object.keys(out.snapshot.captured)).toEqual(['count']);
  });

  it('with: values are interpolated; those from run-time data are marked as data', () => {
    const d = parent({ with: { n: '${captured.count.output}', label: 'run ${state.iteration}', fixed: 7 } });
    const { command } = toSubloop(d);
    expect(command).toMatchObject({
      input: { bindings: { values: { n: '42', label: 'run 1', fixed: 7 }, dataContext: ['n'] } },
    });
  });

  it("only the state's own timeout: bounds the child (default_timeout is for actions)", () => {
    const limited = toSubloop(parent({ timeout: 90 }, { default_timeout: 5 })).command;
    expect(limited.type === 'run_loop' && limited.input.timeout_s).toBe(90);
    const unlimited = toSubloop(parent({}, { default_timeout: 5 })).command;
    expect(unlimited.type === 'run_loop' && 'timeout_s' in unlimited.input).toBe(false);
  });

  it('a child stopped by that timeout is an error verdict that names the timeout', () => {
    const d = parent({ timeout: 90 });
    const { at } = toSubloop(d);
    // The child records its own end as cancelled; the core knows the state's timeout stopped it.
    const out = next(d, at, {
      type: 'subloop_done',
      result: childResult({ terminated_by: 'cancelled', final_state: 'sub' }),
      timedOut: true,
      now: 2000,
    });
    expect(out.snapshot.current).toBe('broken');
    expect(eventNamed(out.events, 'evaluate')).toMatchObject({
      verdict: 'error',
      error: expect.stringContaining("the state's timeout of 90s ran out"),
    });
  });

  it('capture: on a sub-loop state stores the child outcome', () => {
    const d = parent({ capture: 'child_run' });
    const { at } = toSubloop(d);
    const out = next(d, at, {
      type: 'subloop_done',
      result: childResult({ failure: true, final_state: 'gave_up' }),
      timedOut: false,
      now: 2000,
    });
    expect(out.snapshot.captured.child_run).toMatchObject({ output: 'gave_up', exit_code: 1 });
  });
});

describe('binding parameters', () => {
  const child = def({
    ...loop({ run: { action: 'echo ${context.issue} ${context.count}', next: 'done' } }),
    name: 'child',
    parameters: {
      issue: { type: 'string', required: true },
      count: { type: 'integer', default: 2 },
      mode: { type: 'enum', values: ['fast', 'slow'], default: 'fast' },
    },
  });

  it.each([
    ['string', 'x', 'x'],
    ['integer', '12', 12],
    ['integer', 12, 12],
    ['number', '1.5', 1.5],
    ['boolean', 'yes', true],
    ['boolean', false, false],
    ['path', 'src/a.ts', 'src/a.ts'],
  ] as const)('%s accepts %o', (type, value, expected) => {
    expect(coerceParameter({ type, required: false }, value)).toEqual({ value: expected });
  });

  it.each([
    ['integer', 'abc', 'expected an integer, got "abc"'],
    ['integer', '1.5', 'expected an integer'],
    ['number', 'ten', 'expected a number'],
    ['boolean', 'maybe', 'expected true or false'],
    ['path', '', 'expected a path'],
    ['string', { a: 1 }, 'expected a string, got a mapping'],
  ] as const)('%s refuses %o', (type, value, message) => {
    const out = coerceParameter({ type, required: false }, value);
    expect('error' in out && out.error).toContain(message);
  });

  it('binds values, applies defaults and reports unknown, missing and mistyped ones', () => {
    expect(
      bindParameters(child, { issue: 'BUG-1', count: '5' }, { source: 'with', strict: true, requireAll: true }),
    ).toEqual({ values: { issue: 'BUG-1', count: 5, mode: 'fast' }, problems: [] });
    const bad = bindParameters(
      child,
      { isue: 'x', count: 'many', mode: 'medium' },
      { source: 'with', strict: true, requireAll: true },
    );
    expect(bad.problems.map((p) => p.message)).toEqual([
      'loop "child" has no parameter "isue"',
      'loop "child" needs parameter "issue"',
      'parameter "count" of loop "child": expected an integer, got "many"',
      'parameter "mode" of loop "child": expected one of fast, slow, got "medium"',
    ]);
  });

  it("the loop's own context value comes before a parameter's default (a from: child setting it), and is type-checked", () => {
    const withContext = (context: Record<string, unknown>) => ({ ...child, context });
    const opts = { source: 'with', strict: true, requireAll: true } as const;
    expect(bindParameters(withContext({ count: 7 }), { issue: 'i' }, opts).values).toEqual({
      issue: 'i',
      count: 7,
      mode: 'fast',
    });
    expect(bindParameters(withContext({ count: '7', issue: 'own' }), {}, opts)).toEqual({
      values: { issue: 'own', count: 7, mode: 'fast' },
      problems: [],
    });
    // What the caller gives still wins; a template is left for run time.
    expect(bindParameters(withContext({ count: 7 }), { issue: 'i', count: 9 }, opts).values.count).toBe(9);
    expect(bindParameters(withContext({ count: '${context.n}' }), { issue: 'i' }, opts).values).toEqual({
      issue: 'i',
      mode: 'fast',
    });
    expect(bindParameters(withContext({ count: 'many' }), { issue: 'i' }, opts).problems.map((p) => p.message)).toEqual(
      ['parameter "count" of loop "child": expected an integer, got "many"'],
    );
    const started = childStart(withContext({ count: 7 }), { bindings: { values: { issue: 'i' }, dataContext: [] } });
    expect(started).toMatchObject({ definition: { context: { issue: 'i', count: 7 } } });
  });

  it('childStart binds into the context, or explains why it cannot', () => {
    const ok = childStart(child, { bindings: { values: { issue: 'BUG-1' }, dataContext: ['issue'] } });
    expect(ok).toMatchObject({
      definition: { context: { issue: 'BUG-1', count: 2, mode: 'fast' } },
      dataContext: ['issue'],
    });
    const bad = childStart(child, { bindings: { values: { count: 'x' }, dataContext: [] } });
    expect('error' in bad && bad.error).toMatch(/needs parameter "issue".*expected an integer/);
  });

  it('a child that cannot start ends with an error at once', () => {
    const out = transition(child, null, { type: 'start', now: 0, error: 'parameter "count": expected an integer' });
    expect(out.snapshot.status === 'done' && out.snapshot.outcome).toMatchObject({
      terminated_by: 'error',
      error: 'parameter "count": expected an integer',
      steps: 0,
    });
  });

  it('a data-bound parameter is quoted data in shell actions; an author value is code', () => {
    const snap = { startedAt: new Date(0).toISOString() };
    const scope = (dataContext: string[]) => ({
      context: { issue: '$(touch pwned)' },
      captured: {},
      prev: null,
      result: null,
      state: { name: 'run', iteration: 1 },
      loop: { name: 'child', started_at: snap.startedAt, elapsed_ms: 0, elapsed: '0s' },
      dataContext,
    });
    expect(renderShell('echo ${context.issue}', scope(['issue']))).toEqual({
      script: 'echo ${LL_V1}',
      vars: { LL_V1: '$(touch pwned)' },
      env: {},
    });
    expect(renderShell('echo ${context.issue}', scope([])).script).toBe('echo $(touch pwned)');
  });
});

describe('validation of sub-loop states and parameters', () => {
  const messages = (raw: Record<string, unknown>) =>
    validateLoop(raw)
      .diagnostics.filter((d) => d.severity === 'error')
      .map((d) => d.message);

  it.each([
    [{ loop: 'c', action: 'x', next: 'done' }, 'a state runs either an action or a sub-loop'],
    [{ loop: 'c', evaluate: { type: 'exit_code' }, on_yes: 'done' }, "judged by the child loop's outcome"],
    [{ loop: 'c', with: { a: 1 }, context_passthrough: true, next: 'done' }, 'mutually exclusive'],
    [{ action: 'x', with: { a: 1 }, next: 'done' }, 'with: only applies to a state that runs a sub-loop'],
    [{ loop: 'c', with: { a: '${env.TOKEN}' }, next: 'done' }, 'only allowed in action:'],
  ])('%o is refused', (state, message) => {
    expect(messages(loop({ s: state })).join('\n')).toContain(message);
  });

  it.each([
    [{ p: { type: 'enum' } }, 'enum parameter "p" has no values'],
    [{ p: { type: 'integer', default: 'x' } }, 'default of parameter "p": expected an integer'],
    [{ p: { type: 'string', values: ['a'] } }, 'values: only applies to enum parameters'],
    [{ 'p-q': { type: 'string' } }, 'is not an identifier'],
  ])('parameters %o are refused', (parameters, message) => {
    expect(messages(loop({ s: { action: 'x', next: 'done' } }, { parameters })).join('\n')).toContain(message);
  });

  it('a declared parameter counts as defined context', () => {
    const result = validateLoop(
      loop(
        { s: { action: 'echo ${context.p}', next: 'done' } },
        { parameters: { p: { type: 'string', required: true } } },
      ),
    );
    expect(result.diagnostics.filter((d) => d.message.includes('not defined'))).toEqual([]);
  });
});

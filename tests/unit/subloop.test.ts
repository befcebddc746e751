/** Sub-loop states and parameters in the pure core: inputs, verdicts, bindings, validation. */
import { describe, expect, it } from 'vitest';
import { bindParameters, coerceParameter } from '../../fsm/parameters.js';
import { initialSnapshot } from '../../fsm/snapshot.js';
import { failedStart, start, step } from '../../fsm/step.js';
import { childStart, subloopTimeoutError, subloopVerdict } from '../../fsm/subloop.js';
import { renderShell } from '../../fsm/shell-render.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { validateLoop } from '../../fsm/validate.js';
import { def, loop } from './helpers.js';

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
  def(loop({ measure: { action: 'echo 42', capture: 'count', next: 'sub' }, sub: { loop: 'child', on_success: 'done', on_failure: 'fail', on_error: 'broken', ...state }, fail: { terminal: true, failure: true }, broken: { terminal: true, failure: true } }, extra));

/** Run the parent to its sub-loop state; returns the snapshot and the run_loop command. */
function toSubloop(d: ReturnType<typeof def>) {
  let out = start(d, 1000);
  out = step(d, out.snapshot, { type: 'action_done', result: { output: '42\n', stderr: '', exit_code: 0, duration_ms: 3 }, now: 1010 });
  const command = out.commands.find((c) => c.type === 'run_loop');
  return { snapshot: out.snapshot, command, events: out.commands };
}

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
    const { snapshot, command } = toSubloop(d);
    expect(command).toMatchObject({ type: 'run_loop', input: { state: 'sub', loop: 'child', step: 2 } });
    expect(snapshot.phase).toBe('subloop');
    const out = step(d, snapshot, { type: 'loop_done', result, now: 2000 });
    const route = out.commands.find((c) => c.type === 'emit' && c.event.event === 'route');
    expect(route).toMatchObject({ event: { from: 'sub', to } });
  });

  it('a child that cannot run routes on_error with the reason', () => {
    const d = parent({});
    const { snapshot } = toSubloop(d);
    const out = step(d, snapshot, { type: 'loop_failed', error: 'no loop named "child"', now: 2000 });
    expect(out.snapshot.current).toBe('broken');
    const errorEvent = out.commands.find((c) => c.type === 'emit' && c.event.event === 'action_error');
    expect(errorEvent).toMatchObject({ event: { state: 'sub', error: 'no loop named "child"' } });
  });

  it('without on_error, a failed child ends the parent with an error naming the state', () => {
    const d = def(loop({ sub: { loop: 'child', on_success: 'done', on_failure: 'done' } }));
    const { snapshot } = { snapshot: start(d, 0).snapshot };
    const out = step(d, snapshot, { type: 'loop_done', result: childResult({ terminated_by: 'error', error: 'exploded' }), now: 10 });
    expect(out.snapshot.outcome).toMatchObject({ terminated_by: 'error' });
    expect(out.snapshot.outcome?.error).toContain('state "sub": sub-loop "child" failed: exploded');
  });
});

describe('what the child gets', () => {
  it('context_passthrough passes context and captured in, and merges captured back', () => {
    const d = parent({ context_passthrough: true }, { context: { target: 3 } });
    const { snapshot, command } = toSubloop(d);
    expect(command).toMatchObject({ input: { passthrough: { context: { target: 3 }, captured: { count: { output: '42' } } } } });
    const out = step(d, snapshot, { type: 'loop_done', result: childResult({ captured: { fixed: { output: 'yes', stderr: '', exit_code: 0, duration_ms: 1 } } }), now: 2000 });
    expect(Object.keys(out.snapshot.captured).sort()).toEqual(['count', 'fixed']);
  });

  it('without passthrough the child is isolated: nothing goes in, nothing comes back', () => {
    const d = parent({});
    const { snapshot, command } = toSubloop(d);
    expect(command && command.type === 'run_loop' && command.input.passthrough).toBeUndefined();
    const out = step(d, snapshot, { type: 'loop_done', result: childResult({ captured: { fixed: { output: 'yes', stderr: '', exit_code: 0, duration_ms: 1 } } }), now: 2000 });
    expect(Object.keys(out.snapshot.captured)).toEqual(['count']);
  });

  it('with: values are interpolated; those from run-time data are marked as data', () => {
    const d = parent({ with: { n: '${captured.count.output}', label: 'run ${state.iteration}', fixed: 7 } });
    const { command } = toSubloop(d);
    expect(command).toMatchObject({ input: { bindings: { values: { n: '42', label: 'run 1', fixed: 7 }, dataContext: ['n'] } } });
  });

  it("only the state's own timeout: bounds the child (default_timeout is for actions)", () => {
    const limited = toSubloop(parent({ timeout: 90 }, { default_timeout: 5 })).command;
    expect(limited && limited.type === 'run_loop' && limited.input.timeout_s).toBe(90);
    const unlimited = toSubloop(parent({}, { default_timeout: 5 })).command;
    expect(unlimited && unlimited.type === 'run_loop' && 'timeout_s' in unlimited.input).toBe(false);
  });

  it('a child stopped by that timeout is an error verdict that names the timeout', () => {
    const d = parent({ timeout: 90 });
    const { snapshot } = toSubloop(d);
    const out = step(d, snapshot, { type: 'loop_done', result: childResult({ terminated_by: 'cancelled', final_state: 'sub', error: subloopTimeoutError(90) }), now: 2000 });
    expect(out.snapshot.current).toBe('broken');
    const evaluate = out.commands.find((c) => c.type === 'emit' && c.event.event === 'evaluate');
    expect(evaluate).toMatchObject({ event: { verdict: 'error', error: expect.stringContaining("the state's timeout of 90s ran out") } });
  });

  it('capture: on a sub-loop state stores the child outcome', () => {
    const d = parent({ capture: 'child_run' });
    const { snapshot } = toSubloop(d);
    const out = step(d, snapshot, { type: 'loop_done', result: childResult({ failure: true, final_state: 'gave_up' }), now: 2000 });
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
    expect(bindParameters(child, { issue: 'BUG-1', count: '5' }, { source: 'with', strict: true, requireAll: true })).toEqual({ values: { issue: 'BUG-1', count: 5, mode: 'fast' }, problems: [] });
    const bad = bindParameters(child, { isue: 'x', count: 'many', mode: 'medium' }, { source: 'with', strict: true, requireAll: true });
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
    expect(bindParameters(withContext({ count: 7 }), { issue: 'i' }, opts).values).toEqual({ issue: 'i', count: 7, mode: 'fast' });
    expect(bindParameters(withContext({ count: '7', issue: 'own' }), {}, opts)).toEqual({ values: { issue: 'own', count: 7, mode: 'fast' }, problems: [] });
    // What the caller gives still wins; a template is left for run time.
    expect(bindParameters(withContext({ count: 7 }), { issue: 'i', count: 9 }, opts).values.count).toBe(9);
    expect(bindParameters(withContext({ count: '${context.n}' }), { issue: 'i' }, opts).values).toEqual({ issue: 'i', mode: 'fast' });
    expect(bindParameters(withContext({ count: 'many' }), { issue: 'i' }, opts).problems.map((p) => p.message)).toEqual(['parameter "count" of loop "child": expected an integer, got "many"']);
    const started = childStart(withContext({ count: 7 }), { bindings: { values: { issue: 'i' }, dataContext: [] } });
    expect(started).toMatchObject({ definition: { context: { issue: 'i', count: 7 } } });
  });

  it('childStart binds into the context, or explains why it cannot', () => {
    const ok = childStart(child, { bindings: { values: { issue: 'BUG-1' }, dataContext: ['issue'] } });
    expect(ok).toMatchObject({ definition: { context: { issue: 'BUG-1', count: 2, mode: 'fast' } }, dataContext: ['issue'] });
    const bad = childStart(child, { bindings: { values: { count: 'x' }, dataContext: [] } });
    expect('error' in bad && bad.error).toMatch(/needs parameter "issue".*expected an integer/);
  });

  it('a child that cannot start ends with an error at once', () => {
    const out = failedStart(child, 0, 'parameter "count": expected an integer');
    expect(out.snapshot.outcome).toMatchObject({ terminated_by: 'error', error: 'parameter "count": expected an integer', steps: 0 });
  });

  it('a data-bound parameter is quoted data in shell actions; an author value is code', () => {
    const snap = initialSnapshot('run', 0);
    const scope = (dataContext: string[]) => ({
      context: { issue: '$(touch pwned)' },
      captured: {},
      prev: null,
      result: null,
      state: { name: 'run', iteration: 1 },
      loop: { name: 'child', started_at: snap.startedAt, elapsed_ms: 0, elapsed: '0s' },
      dataContext,
    });
    expect(renderShell('echo ${context.issue}', scope(['issue']))).toEqual({ script: 'echo ${LL_V1}', vars: { LL_V1: '$(touch pwned)' }, env: {} });
    expect(renderShell('echo ${context.issue}', scope([])).script).toBe('echo $(touch pwned)');
  });
});

describe('validation of sub-loop states and parameters', () => {
  const messages = (raw: Record<string, unknown>) => validateLoop(raw).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);

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
    const result = validateLoop(loop({ s: { action: 'echo ${context.p}', next: 'done' } }, { parameters: { p: { type: 'string', required: true } } }));
    expect(result.diagnostics.filter((d) => d.message.includes('not defined'))).toEqual([]);
  });
});

/**
 * A sub-loop state given `with:` or `context_passthrough` keeps its child's captured values under
 * its own name, as little-loops does (`${captured.<state>.<child capture>.output}`), when the loop
 * reads them; `capture_reachability_ok: true` makes a value no state captures a warning. Loops
 * written here.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { begin, def, loop, next } from './helpers.js';

const childResult = (captured: ExecutionResult['captured']): ExecutionResult => ({
  loop: 'child',
  final_state: 'done',
  iterations: 1,
  steps: 2,
  terminated_by: 'terminal',
  failure: false,
  duration_ms: 5,
  captured,
});
const value = (output: string) => ({ output, stderr: '', exit_code: 0, duration_ms: 1 });

const REPORT = 'echo "${captured.prove.targets.output}" "${captured.prove.terminated_by}"';

function parentWith(sub: Record<string, unknown>, report = REPORT, extra: Record<string, unknown> = {}) {
  return loop(
    {
      prove: { loop: 'child', on_success: 'report', on_failure: 'report', ...sub },
      report: { action: report, next: 'done' },
    },
    extra,
  );
}

/** Run the parent's sub-loop state to its end; returns the snapshot and the next command. */
function afterChild(raw: Record<string, unknown>, captured: ExecutionResult['captured']) {
  const d = def(raw);
  const out = next(d, begin(d, 1000), {
    type: 'subloop_done',
    result: childResult(captured),
    timedOut: false,
    now: 2000,
  });
  return { snapshot: out.snapshot, effect: out.effect };
}

describe("a sub-loop state keeps its child's captured values under its name", () => {
  it.each([
    ['with:', { with: { goal: 'x' } }],
    ['context_passthrough', { context_passthrough: true }],
  ])('%s: the next state reads ${captured.prove.targets.output} and ${captured.prove.terminated_by}', (_label, sub) => {
    const { snapshot, effect } = afterChild(parentWith(sub), { targets: value('a,b'), raw: value('{}') });
    expect(snapshot.captured.prove).toMatchObject({
      targets: { output: 'a,b' },
      raw: { output: '{}' },
      terminated_by: 'terminal',
      output: 'done',
      exit_code: 0,
    });
    expect(effect).toMatchObject({ type: 'run_action' });
    const shell = effect.type === 'run_action' ? effect.input.shell : undefined;
    expect(Object.values(shell?.vars ?? {})).toEqual(['a,b', 'terminal']);
  });

  it('a loop that reads nothing under the name keeps the captured values it had', () => {
    const { snapshot } = afterChild(parentWith({ with: { goal: 'x' } }, 'echo report'), { targets: value('a') });
    expect(Object.keys(snapshot.captured)).toEqual([]);
  });

  it('an isolated child (no with:, no passthrough) shares nothing, and reading under its name is refused', () => {
    const result = validateLoop(parentWith({}));
    expect(result.definition).toBeUndefined();
    expect(result.diagnostics.map((d) => d.message).join('\n')).toMatch(/refers to "prove", which no state captures/);
  });

  it('a state that captures the name keeps it: the author wrote it', () => {
    const raw = parentWith({ with: { goal: 'x' }, capture: 'prove' }, 'echo "${captured.prove.output}"');
    const { snapshot } = afterChild(raw, { targets: value('a') });
    expect(snapshot.captured.prove).toEqual({ output: 'done', stderr: '', exit_code: 0, duration_ms: 5 });
  });

  it("a passthrough child's own capture of that name is left as it is", () => {
    const raw = parentWith({ context_passthrough: true }, 'echo "${captured.prove.output}"');
    const { snapshot } = afterChild(raw, { prove: value('child wrote this') });
    expect(snapshot.captured.prove).toEqual(value('child wrote this'));
  });
});

describe('capture_reachability_ok: true', () => {
  const raw = (extra: Record<string, unknown>) =>
    loop({ a: { action: 'echo "${captured.plan_display.output}"', next: 'done' } }, extra);

  it('without it a value no state captures is an error', () => {
    expect(validateLoop(raw({})).definition).toBeUndefined();
  });

  it('with it the same reference is a warning that says what happens at run time', () => {
    const result = validateLoop(raw({ capture_reachability_ok: true }));
    expect(result.definition).toBeDefined();
    expect(result.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.message)).toEqual([
      expect.stringMatching(
        /"plan_display", which no state captures; capture_reachability_ok: true accepts it: the state takes its error route/,
      ),
    ]);
  });
});

describe("a sub-loop state's with: reading a value no state captures", () => {
  const raw = loop({
    resolve: { action: 'echo task', capture: 'resolved', next: 'run' },
    run: { loop: 'child', with: { input: '${captured.resolve_task.output}' }, on_success: 'done', on_failure: 'done' },
  });

  it('is a warning, as little-loops does not check it; the loop loads', () => {
    const result = validateLoop(raw);
    expect(result.definition).toBeDefined();
    expect(result.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.message)).toEqual([
      expect.stringMatching(
        /\$\{captured\.resolve_task\.output\} refers to "resolve_task", which no state captures; the sub-loop state takes its error route/,
      ),
    ]);
  });

  it('when it runs, the state fails with the undefined reference named', () => {
    const d = def(raw);
    const out = next(d, begin(d, 1000), {
      type: 'action_done',
      result: { output: 'task', stderr: '', exit_code: 0, duration_ms: 1 },
      now: 1010,
    });
    expect(out.snapshot.status).not.toBe('running');
    expect(JSON.stringify(out.events)).toMatch(/undefined variable \$\{captured\.resolve_task\.output\}/);
  });

  it('the same reference in an action is still an error', () => {
    const inAction = loop({ a: { action: 'echo ${captured.resolve_task.output}', next: 'done' } });
    expect(validateLoop(inAction).definition).toBeUndefined();
  });
});

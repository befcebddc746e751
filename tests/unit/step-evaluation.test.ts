import { describe, expect, it } from 'vitest';
import { DEFAULT_LLM_SCHEMA } from '../../fsm/llm-schema.js';
import type { Transition } from '../../fsm/run/snapshot.js';
import { begin, def, drive, eventsNamed, loop, next, resolvedDef, scriptOf } from './helpers.js';

describe('prompt actions and LLM evaluation', () => {
  it('a slash command runs as a prompt and is evaluated by the LLM', () => {
    const d = def(
      loop(
        { fix: { action: '/ll:fix ${context.area}', on_yes: 'done', on_no: 'fix', agent: 'coder', tools: ['Read'] } },
        { context: { area: 'src' }, llm: { model: 'haiku' } },
      ),
    );
    const run = drive(d, { actions: { fix: [{ output: 'patched' }] }, llm: { fix: ['yes'] } });
    expect(run.actions[0]).toEqual({
      kind: 'prompt',
      prompt: { parts: ['/ll:fix src'] },
      agent: 'coder',
      tools: ['Read'],
      state: 'fix',
      step: 1,
      timeout_s: 3600,
    });
    const llm = run.commands.find((c) => c.type === 'evaluate_llm');
    expect(llm).toEqual({
      type: 'evaluate_llm',
      input: {
        output: 'patched',
        schema: DEFAULT_LLM_SCHEMA,
        min_confidence: 0.5,
        uncertain_suffix: false,
        timeout_s: 1800,
        model: 'haiku',
        state: 'fix',
      },
    });
    expect(run.entered).toEqual(['fix', 'done']);
  });

  it('the snapshot holds the action result only while the LLM evaluates it', () => {
    const d = def(
      loop({ fix: { action: '/ll:fix', on_yes: 'done', on_no: 'check' }, check: { action: 'make', next: 'done' } }),
    );
    const run = drive(d, { actions: { fix: [{ output: 'patched' }] }, llm: { fix: ['no'] } });
    expect(run.snapshots.map((s) => s.phase)).toEqual(['action', 'llm', 'action', 'done']);
    expect(run.snapshots[1]).toMatchObject({ phase: 'llm', pending: { output: 'patched' } });
    // Only the LLM phase has room for a pending result: the type says so, and so does the data.
    expect(run.snapshots[2]).not.toHaveProperty('pending');
  });

  it.each([
    ['a leading slash', { action: '/ll:check' }, 'prompt'],
    ['action_type: prompt', { action: 'fix the bug', action_type: 'prompt' }, 'prompt'],
    ['action_type: slash_command', { action: 'll:check', action_type: 'slash_command' }, 'prompt'],
    ['an absolute path as first word', { action: '/usr/bin/make test' }, 'shell'],
    ['action_type: shell with a leading slash', { action: '/ll:check', action_type: 'shell' }, 'shell'],
  ])('%s runs as %s with the matching default evaluator', (_label, fields, kind) => {
    const run = drive(def(loop({ a: { ...fields, on_yes: 'done', on_no: 'a' } })), { llm: { a: ['yes'] } });
    expect(run.actions[0]?.kind).toBe(kind);
    expect(run.commands.some((c) => c.type === 'evaluate_llm')).toBe(kind === 'prompt');
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({
      type: kind === 'prompt' ? 'llm_structured' : 'exit_code',
      verdict: 'yes',
    });
  });

  it.each([
    [0, 'yes', ['a', 'done']],
    [1, 'no', ['a', 'other', 'done']],
  ])('with llm.enabled: false a prompt is judged by exit code %i → %s', (exit_code, verdict, entered) => {
    const d = def(
      loop(
        { a: { action: '/ll:check', on_yes: 'done', on_no: 'other' }, other: { next: 'done' } },
        { llm: { enabled: false } },
      ),
    );
    const run = drive(d, { actions: { a: [{ exit_code }] } });
    expect(run.commands.some((c) => c.type === 'evaluate_llm')).toBe(false);
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({ type: 'exit_code', verdict });
    expect(run.entered).toEqual(entered);
  });

  it.each([
    ['routes to on_error', { on_yes: 'done', on_error: 'other' }, 'terminal'],
    ['ends the run without on_error', { on_yes: 'done' }, 'error'],
  ])('explicit llm_structured with the LLM disabled is an error verdict that %s', (_label, routes, terminatedBy) => {
    const d = def(
      loop(
        { a: { action: 'make', evaluate: { type: 'llm_structured' }, ...routes }, other: { next: 'done' } },
        { llm: { enabled: false } },
      ),
    );
    const run = drive(d);
    expect(run.commands.some((c) => c.type === 'evaluate_llm')).toBe(false);
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({ type: 'llm_structured', verdict: 'error' });
    expect(run.result.terminated_by).toBe(terminatedBy);
    if (terminatedBy === 'error') expect(run.result.error).toMatch(/disabled/);
  });

  it('llm_structured passes its prompt, schema and min_confidence and evaluates source:', () => {
    const schema = { type: 'object', properties: { verdict: { type: 'string' } } };
    const d = def(
      loop({
        a: { action: 'make', capture: 'm', next: 'judge' },
        judge: {
          evaluate: {
            type: 'llm_structured',
            source: 'out: ${captured.m.output}',
            prompt: 'Did it work?',
            schema,
            min_confidence: 0.8,
            uncertain_suffix: true,
          },
          on_yes: 'done',
          on_no: 'a',
        },
      }),
    );
    const run = drive(d, { actions: { a: [{ output: 'ok' }] }, llm: { judge: ['yes'] } });
    expect(run.commands.find((c) => c.type === 'evaluate_llm')).toEqual({
      type: 'evaluate_llm',
      input: {
        output: 'out: ok',
        prompt: 'Did it work?',
        schema,
        min_confidence: 0.8,
        uncertain_suffix: true,
        timeout_s: 1800,
        state: 'judge',
      },
    });
  });

  it('llm_structured interpolates its prompt', () => {
    const d = def(
      loop(
        {
          a: {
            action: 'make',
            capture: 'm',
            evaluate: { type: 'llm_structured', prompt: 'Is ${context.goal} reached? ${captured.m.output}' },
            on_yes: 'done',
          },
        },
        { context: { goal: 'lint-clean' } },
      ),
    );
    const run = drive(d, { actions: { a: [{ output: 'ok' }] }, llm: { a: ['yes'] } });
    const llm = run.commands.find((c) => c.type === 'evaluate_llm');
    expect(llm?.type === 'evaluate_llm' && llm.input.prompt).toBe('Is lint-clean reached? ok');
  });

  it('an undefined variable in the llm_structured prompt is an error verdict', () => {
    const d = def(
      loop({
        a: {
          action: 'make',
          evaluate: { type: 'llm_structured', prompt: 'Is ${context.goal} reached?' },
          on_yes: 'done',
          on_error: 'done',
        },
      }),
    );
    const run = drive(d);
    expect(run.commands.some((c) => c.type === 'evaluate_llm')).toBe(false);
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({
      type: 'llm_structured',
      verdict: 'error',
      details: { error: expect.stringContaining('prompt: undefined variable ${context.goal}') },
    });
    expect(run.result.terminated_by).toBe('terminal');
  });
});

describe('decision states and evaluators in the run', () => {
  const lintDecide = (evaluate: Record<string, unknown>) =>
    def(
      loop({
        lint: { action: 'ruff', capture: 'errors', next: 'decide' },
        decide: { evaluate, on_yes: 'fix', on_no: 'done', on_error: 'broken' },
        fix: { next: 'done' },
        broken: { next: 'done' },
      }),
    );

  it.each([
    [{ type: 'output_contains', source: '${captured.errors.output}', pattern: 'ERROR' }, 'E: ERROR here', 'fix'],
    [{ type: 'output_contains', source: '${captured.errors.output}', pattern: 'ERROR' }, 'clean', 'done'],
    [{ type: 'output_numeric', source: '${captured.errors.output}', operator: 'gt', target: 0 }, '3', 'fix'],
    [{ type: 'exit_code', source: '${captured.errors.exit_code}' }, 'x', 'fix'],
    [{ type: 'exit_code', source: 'not a number' }, 'x', 'broken'],
    [{ type: 'output_contains', source: '${captured.errors.stderr}', pattern: 'x' }, 'x', 'done'],
  ])('a decision state without action evaluates its source: %j on %j → %s', (evaluate, output, to) => {
    const run = drive(lintDecide(evaluate), { actions: { lint: [{ output, exit_code: 0 }] } });
    expect(run.actions.map((a) => a.state)).toEqual(['lint']);
    expect(run.entered.slice(0, 3)).toEqual(['lint', 'decide', to]);
  });

  it('an undefined source is an error verdict', () => {
    const d = def(
      loop({
        decide: {
          evaluate: { type: 'output_contains', source: '${captured.later.output}', pattern: 'x' },
          on_yes: 'done',
          on_error: 'later',
        },
        later: { action: 'x', capture: 'later', next: 'done' },
      }),
    );
    const run = drive(d);
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({
      verdict: 'error',
      details: { error: expect.stringContaining('${captured.later.output}') },
    });
    expect(run.entered).toEqual(['decide', 'later', 'done']);
  });

  it.each([
    ['exit_code', {}, 0, 'yes'],
    ['exit_code', {}, 1, 'no'],
    ['exit_code', {}, 2, 'error'],
    ['exit_code', {}, 124, 'error'],
    ...[124, 126, 127].flatMap((code) => [
      ['output_contains', { pattern: 'ok' }, code, 'error'],
      ['output_numeric', { target: 0 }, code, 'error'],
      ['output_json', { path: '.ok' }, code, 'error'],
      ['convergence', { target: 0 }, code, 'error'],
    ]),
    ['output_contains', { pattern: 'ok' }, 1, 'yes'],
  ] as Array<[string, Record<string, unknown>, number, string]>)(
    '%s %j with exit %i → %s',
    (type, fields, exit_code, verdict) => {
      const d = def(loop({ a: { action: 'x', evaluate: { type, ...fields }, route: { _: 'done' } } }));
      const run = drive(d, {
        actions: {
          a: [{ exit_code, output: type === 'output_json' ? '{"ok":true}' : type === 'output_contains' ? 'ok' : '0' }],
        },
      });
      expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({ type, verdict });
    },
  );

  it('convergence compares with the value the state measured last time; toward is target', () => {
    const d = def(
      loop({
        measure: {
          action: 'count',
          evaluate: { type: 'convergence', toward: 0 },
          route: { target: 'done', progress: '$current', stall: 'stuck' },
        },
        stuck: { next: 'done' },
      }),
    );
    const run = drive(d, { actions: { measure: [{ output: '10' }, { output: '5' }, { output: '5' }] } });
    const evals = eventsNamed(run, 'evaluate');
    expect(evals.map((e) => e.verdict)).toEqual(['progress', 'progress', 'stall']);
    expect(evals.map((e) => (e.details as Record<string, unknown>).previous)).toEqual([null, 10, 5]);
    expect(run.entered).toEqual(['measure', 'measure', 'measure', 'stuck', 'done']);
    expect(run.final.lastValues).toEqual({ measure: 5 });
  });

  it('convergence reaches target and honours an explicit previous:', () => {
    const d = def(
      loop(
        {
          base: { action: 'count', capture: 'base', next: 'measure' },
          measure: {
            action: 'count',
            evaluate: { type: 'convergence', target: '${context.goal}', previous: '${captured.base.output}' },
            route: { target: 'done', progress: 'measure', stall: 'done' },
          },
        },
        { context: { goal: 2 } },
      ),
    );
    const run = drive(d, {
      actions: { base: [{ output: '4' }], measure: [{ output: '6' }, { output: '3' }, { output: '2' }] },
    });
    expect(
      eventsNamed(run, 'evaluate').map((e) => [e.verdict, (e.details as Record<string, unknown>).previous]),
    ).toEqual([['stall', 4]]);
  });
});

describe('interpolation failures in actions', () => {
  it.each([
    ['on_error', { on_yes: 'done', on_error: 'recover' }],
    ['route _error', { route: { yes: 'done', _error: 'recover' } }],
    ['route error', { route: { yes: 'done', error: 'recover' } }],
    ['next + on_error', { next: 'done', on_error: 'recover' }],
  ])('an undefined ${captured.x.output} is an error verdict routed through %s', (_label, routes) => {
    const d = def(
      loop({
        a: { action: 'echo ${captured.x.output}', ...routes },
        recover: { action: 'fixup', capture: 'x', next: 'done' },
      }),
    );
    const run = drive(d);
    expect(run.actions.map((a) => a.state)).toEqual(['recover']);
    expect(run.entered).toEqual(['a', 'recover', 'done']);
    expect(eventsNamed(run, 'action_error')[0]).toMatchObject({
      state: 'a',
      error: expect.stringContaining('${captured.x.output}'),
    });
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({ state: 'a', type: 'error', verdict: 'error' });
    expect(eventsNamed(run, 'route')[0]).toEqual({ event: 'route', from: 'a', to: 'recover', verdict: 'error' });
  });

  it.each([
    ['captured', 'echo ${captured.x.output}', ['${captured.x.output}', 'state "a"']],
    ['context', 'echo ${context.missing}', ['${context.missing}', 'state "a"', '--context missing=']],
    ['result', 'echo ${result.details.reason}', ['${result.details.reason}', 'state "a"']],
    ['prev', 'echo ${context.x:-ok} ${prev}', ['${prev}', 'state "a"']],
  ])(
    'without an error route the run ends with an error naming the %s variable and the state',
    (_label, action, parts) => {
      const d = def(
        loop({ a: { action, on_yes: 'done', on_no: 'w' }, w: { action: 'x', capture: 'x', next: 'done' } }),
      );
      const run = drive(d);
      expect(run.result.terminated_by).toBe('error');
      expect(run.actions).toEqual([]);
      for (const part of parts) expect(run.result.error).toContain(part);
    },
  );

  it('a data value in a quoted heredoc is written into its body; one that would close it is an error verdict', () => {
    const d = def(
      loop({
        a: { action: 'true', capture: 'x', next: 'b' },
        b: { action: "cat <<'EOF'\n${captured.x.output}\nEOF", on_yes: 'a', on_error: 'done' },
      }),
    );
    const run = drive(d, { actions: { a: [{ output: "it's $(x)" }, { output: 'ok\nEOF\ntouch pwned' }] } });
    expect(scriptOf(run, 1)).toBe("cat <<'EOF'\nit's $(x)\nEOF");
    // The second value would end the here-document: b issues no action and takes its error route.
    expect(run.entered).toEqual(['a', 'b', 'a', 'b', 'done']);
    expect(run.actions).toHaveLength(3);
    expect(eventsNamed(run, 'action_error')[0]?.error).toMatch(/ends its quoted here-document/);
    expect(run.result.terminated_by).toBe('terminal');
  });

  it('context values are resolved by the client before the run (resolvedDef)', () => {
    const d = resolvedDef(
      loop(
        { a: { action: '${context.metric_cmd}', next: 'done' } },
        { context: { target_dir: 'src/', metric_cmd: 'mypy ${context.target_dir}' } },
      ),
    );
    expect(scriptOf(drive(d))).toBe('mypy src/');
  });
});

describe('LLM answers are judged by the core', () => {
  const d = def(
    loop({
      fix: {
        action: '/ll:fix',
        evaluate: { type: 'llm_structured', min_confidence: 0.6, uncertain_suffix: true },
        route: { yes: 'done', no: 'fix', yes_uncertain: 'fix' },
      },
    }),
  );
  const atLlm = () =>
    next(d, begin(d), {
      type: 'action_done',
      result: { output: 'patched', stderr: '', exit_code: 0, duration_ms: 1 },
      now: 5,
    });
  const evaluated = (out: Transition) => out.events.find((e) => e.event === 'evaluate');

  it.each([
    [{ verdict: 'yes', confidence: 0.9 }, 'yes', true],
    [{ verdict: 'yes', confidence: 0.6 }, 'yes', true],
    [{ verdict: 'yes', confidence: 0.59 }, 'yes_uncertain', false],
    [{ verdict: 'no', confidence: 0.1 }, 'no_uncertain', false],
  ])('%o → %s (below min_confidence with uncertain_suffix: the _uncertain verdict)', (answer, verdict, confident) => {
    const out = next(d, atLlm(), { type: 'llm_replied', judgement: { ...answer, reason: 'r', raw: answer }, now: 10 });
    expect(evaluated(out)).toMatchObject({
      type: 'llm_structured',
      verdict,
      details: { confident, confidence: answer.confidence },
    });
  });

  it('an answer the activity could not read, or an activity failure, is the error verdict with the reason', () => {
    const noAnswer = next(d, atLlm(), { type: 'llm_error', error: 'host CLI output is not JSON', now: 10 });
    expect(evaluated(noAnswer)).toMatchObject({ verdict: 'error', details: { error: 'host CLI output is not JSON' } });
    const failed = next(d, atLlm(), {
      type: 'llm_failed',
      failure: { messages: ['Activity task timed out'] },
      now: 10,
    });
    expect(evaluated(failed)).toMatchObject({
      verdict: 'error',
      details: { error: 'LLM evaluation failed: Activity task timed out' },
    });
  });
});

describe('a state without an action that evaluates (little-loops routing states)', () => {
  it("judges an empty output, not the previous state's: output_contains REPLAN is no", () => {
    const d = def(
      loop({
        a: { action: 'echo REPLAN', next: 'route' },
        route: { evaluate: { type: 'output_contains', pattern: 'REPLAN' }, on_yes: 'replan', on_no: 'done' },
        replan: { terminal: true },
      }),
    );
    const run = drive(d, { actions: { a: [{ output: 'REPLAN\n' }] } });
    expect(run.entered).toEqual(['a', 'route', 'done']);
    expect(run.actions).toHaveLength(1);
  });
});

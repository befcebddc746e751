import { describe, expect, it } from 'vitest';
import { actionKind, actionTimeout, displayAction, DEFAULT_ACTION_TIMEOUT_S } from '../../fsm/action.js';
import { formatDuration } from '../../fsm/format.js';
import { InterpolationError, interpolate, renderPrompt, renderValue } from '../../fsm/interpolate.js';
import type { StateConfig } from '../../fsm/schema.js';
import { hasRefs, NAMESPACES, parseTemplate, TemplateSyntaxError, templateRefs } from '../../fsm/template.js';
import { def, scope } from './helpers.js';

const full = scope({
  context: { dir: 'src/', n: 10, flag: true, empty: '', nothing: null, list: ['a', 'b', 'c'], obj: { k: 'v' } },
  captured: { lint: { output: 'E1 E2', stderr: '', exit_code: 1, duration_ms: 12 } },
  prev: { state: 'lint', output: 'E1 E2', stderr: 'warn', exit_code: 1 },
  result: { verdict: 'yes', details: { confidence: 0.92, reason: 'fixed it', value: 4 } },
  state: { name: 'fix', iteration: 3 },
  loop: { name: 'fixer', started_at: '2024-05-01T10:00:00.000Z', elapsed_ms: 154000, elapsed: '2m 34s' },
});

describe('parseTemplate', () => {
  it('splits text and references', () => {
    expect(parseTemplate('run ${context.dir} now')).toEqual([
      { kind: 'text', text: 'run ' },
      { kind: 'ref', namespace: 'context', path: ['dir'], raw: '${context.dir}', offset: 4 },
      { kind: 'text', text: ' now' },
    ]);
  });

  it.each([
    ['${captured.errors.output}', { namespace: 'captured', path: ['errors', 'output'] }],
    ['${context.x:-fallback}', { namespace: 'context', path: ['x'], fallback: 'fallback' }],
    ['${context.x:-}', { namespace: 'context', path: ['x'], fallback: '' }],
    ['${context.x:-a:-b c}', { namespace: 'context', path: ['x'], fallback: 'a:-b c' }],
    ['${ context.x }', { namespace: 'context', path: ['x'] }],
    ['${result}', { namespace: 'result', path: [] }],
    ['${prev}', { namespace: 'prev', path: [] }],
    ['${env.HOME}', { namespace: 'env', path: ['HOME'] }],
    ['${context.list.0}', { namespace: 'context', path: ['list', '0'] }],
    ['${context.my-key}', { namespace: 'context', path: ['my-key'] }],
  ])('%s', (template, expected) => {
    expect(parseTemplate(template)).toEqual([{ kind: 'ref', raw: template, offset: 0, ...expected }]);
  });

  it.each([
    ['$${HOME}', '${HOME}'],
    ['echo $${x:-d} $HOME $(pwd)', 'echo ${x:-d} $HOME $(pwd)'],
    ['a $ b {c}', 'a $ b {c}'],
  ])('%s is plain text %s', (template, text) => {
    expect(parseTemplate(template)).toEqual([{ kind: 'text', text }]);
  });

  it.each([
    [
      '${foo.bar}',
      /unknown variable namespace in \$\{foo\.bar\}.*context, captured, prev, result, state, loop, env.*\$\$\{/,
    ],
    ['${HOME}', /unknown variable namespace/],
    ['${}', /unknown variable namespace/],
    ['echo ${context.x', /unclosed \$\{ at offset 5/],
    ['${context}', /needs a path after "context\."/],
    ['${captured}', /needs a path/],
    ['${context.a b}', /invalid path segment "a b"/],
    ['${context.a..b}', /invalid path segment ""/],
    ['${env.A.B}', /environment references take one name/],
  ])('%s is a TemplateSyntaxError', (template, message) => {
    expect(() => parseTemplate(template)).toThrow(TemplateSyntaxError);
    expect(() => parseTemplate(template)).toThrow(message);
  });

  it('the error carries the template and the offset', () => {
    try {
      parseTemplate('ok ${nope.x}');
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({ name: 'TemplateSyntaxError', template: 'ok ${nope.x}', offset: 3 });
    }
  });

  it('lists the nine namespaces (item and item_index for parallel states)', () => {
    expect([...NAMESPACES]).toEqual([
      'context',
      'captured',
      'prev',
      'result',
      'state',
      'loop',
      'env',
      'item',
      'item_index',
    ]);
  });

  it.each([
    ['no refs', false],
    ['${context.a}', true],
    ['$${context.a}', false],
    ['$${a} ${context.b}', true],
  ])('hasRefs(%j) is %s', (template, expected) => {
    expect(hasRefs(template)).toBe(expected);
  });

  it('templateRefs returns only references', () => {
    expect(templateRefs('a ${context.x} $${y} ${captured.z.output}').map((r) => r.raw)).toEqual([
      '${context.x}',
      '${captured.z.output}',
    ]);
  });
});

describe('interpolate', () => {
  it.each([
    ['${context.dir}', 'src/'],
    ['${captured.lint.output}', 'E1 E2'],
    ['${captured.lint.exit_code}', '1'],
    ['${captured.lint.duration_ms}', '12'],
    ['${prev.state}/${prev.output}/${prev.exit_code}/${prev.stderr}', 'lint/E1 E2/1/warn'],
    ['${result.verdict}', 'yes'],
    ['${result.details.reason}', 'fixed it'],
    ['${result.details.confidence}', '0.92'],
    ['${state.name}#${state.iteration}', 'fix#3'],
    [
      '${loop.name} ${loop.started_at} ${loop.elapsed_ms} ${loop.elapsed}',
      'fixer 2024-05-01T10:00:00.000Z 154000 2m 34s',
    ],
  ])('%s → %s', (template, expected) => {
    expect(interpolate(template, full)).toBe(expected);
  });

  it.each([
    ['${context.n}', '10'],
    ['${context.flag}', 'true'],
    ['${context.list}', '["a","b","c"]'],
    ['${context.obj}', '{"k":"v"}'],
    ['${context.list.1}', 'b'],
    ['${context.list.-1}', 'c'],
    ['${context.obj.k}', 'v'],
    ['${result}', '{"verdict":"yes","details":{"confidence":0.92,"reason":"fixed it","value":4}}'],
  ])('non-string values render as JSON: %s → %s', (template, expected) => {
    expect(interpolate(template, full)).toBe(expected);
  });

  it.each([
    ['${context.missing:-dflt}', 'dflt'],
    ['${context.empty:-dflt}', 'dflt'],
    ['${context.nothing:-dflt}', 'dflt'],
    ['${context.dir:-dflt}', 'src/'],
    ['${context.n:-0}', '10'],
    ['${captured.none.output:-none yet}', 'none yet'],
    ['[${context.missing:-}]', '[]'],
    ['[${context.empty}]', '[]'],
  ])(':- defaults: %s → %s', (template, expected) => {
    expect(interpolate(template, full)).toBe(expected);
  });

  it.each([
    ['$${context.dir}', '${context.dir}'],
    ['$${x} and ${context.dir}', '${x} and src/'],
    ['cost: $5', 'cost: $5'],
  ])('escapes: %s → %s', (template, expected) => {
    expect(interpolate(template, full)).toBe(expected);
  });

  it.each([
    ['${context.missing}', 'define it under context: in the loop file or pass --context missing=VALUE'],
    ['${context.nothing}', '--context nothing=VALUE'],
    [
      '${captured.nope.output}',
      'the state that captures "nope" has not run yet; write ${captured.nope.output:-default} for a fallback',
    ],
    // "lint" was captured: the field is what is missing, not the state's run.
    ['${captured.lint.bogus}', 'captured "lint" has no field "bogus"; it has output, '],
    ['${captured.lint.outptu}', 'captured "lint" has no field "outptu" (did you mean "output"?)'],
    ['${result.details.missing}', 'no evaluation has produced this value yet'],
    ['${state.bogus}', 'available: state.name, state.iteration'],
    ['${context.dir.sub}', '--context dir=VALUE'],
  ])('an undefined %s is an InterpolationError: %s', (template, fix) => {
    let caught: unknown;
    try {
      interpolate(template, full);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InterpolationError);
    expect(caught).toMatchObject({ variable: template, problem: 'undefined' });
    expect((caught as Error).message.startsWith(`undefined variable ${template}: `)).toBe(true);
    expect((caught as Error).message).toContain(fix);
  });

  it('${prev.*} before any state ran is undefined', () => {
    expect(() => interpolate('${prev.output}', scope())).toThrow('no state has run before this one');
  });

  it('${result.*} before any evaluation is undefined', () => {
    expect(() => interpolate('${result.verdict}', scope())).toThrow(InterpolationError);
  });

  it('does not read inherited properties', () => {
    expect(() => interpolate('${context.constructor}', full)).toThrow(InterpolationError);
    expect(() => interpolate('${context.list.length}', full)).toThrow(InterpolationError);
  });

  it.each(['${env.HOME}', '${env.HOME:-/root}'])('%s is refused outside actions', (template) => {
    expect(() => interpolate(template, full)).toThrow(InterpolationError);
    expect(() => interpolate(template, full)).toThrow(/can only be used in an action/);
    try {
      interpolate(template, full);
    } catch (err) {
      expect(err).toMatchObject({ problem: 'env_not_here', variable: template });
    }
  });

  it('syntax errors surface as TemplateSyntaxError', () => {
    expect(() => interpolate('${nope.x}', full)).toThrow(TemplateSyntaxError);
    expect(() => interpolate('${context.x', full)).toThrow(TemplateSyntaxError);
  });

  it.each([
    ['text', 'text'],
    [3, '3'],
    [null, 'null'],
    [{ a: [1] }, '{"a":[1]}'],
  ])('renderValue(%j) → %s', (value, expected) => {
    expect(renderValue(value)).toBe(expected);
  });
});

describe('renderPrompt', () => {
  it('fills values and leaves ${env.*} for the worker', () => {
    expect(
      renderPrompt('Fix ${context.dir} (${result.details.reason}) as ${env.USER:-me} in ${env.HOME}.', full),
    ).toEqual({
      parts: ['Fix src/ (fixed it) as ', { name: 'USER', default: 'me' }, ' in ', { name: 'HOME' }, '.'],
    });
  });

  it.each([
    ['', []],
    ['${env.A}', [{ name: 'A' }]],
    ['plain $${x}', ['plain ${x}']],
  ])('%j → %j', (template, parts) => {
    expect(renderPrompt(template, full)).toEqual({ parts });
  });

  it('throws on undefined values like interpolate', () => {
    expect(() => renderPrompt('/ll:fix ${captured.nope.output}', full)).toThrow(InterpolationError);
  });
});

describe('actions: kind, timeout, display', () => {
  const st = (fields: Record<string, unknown>) => ({ terminal: false, failure: false, ...fields }) as StateConfig;

  it.each([
    ['pytest', undefined, 'shell'],
    ['/ll:check-code fix', undefined, 'prompt'],
    ['  /ll:check-code', undefined, 'prompt'],
    ['/commit', undefined, 'prompt'],
    ['/usr/bin/make test', undefined, 'shell'],
    ['./run.sh', undefined, 'shell'],
    ['/ll:fix', 'shell', 'shell'],
    ['fix the bug', 'prompt', 'prompt'],
    ['ll:fix', 'slash_command', 'prompt'],
  ] as const)('%j with action_type %s is %s', (action, action_type, kind) => {
    expect(actionKind(st({ action, ...(action_type ? { action_type } : {}) }))).toBe(kind);
  });

  it.each([
    [{ timeout: 5 }, { default_timeout: 60 }, 5],
    [{}, { default_timeout: 60 }, 60],
    [{}, {}, DEFAULT_ACTION_TIMEOUT_S],
  ])('state %j, loop %j → timeout %i', (state, loopFields, expected) => {
    const d = def({
      name: 'x',
      description: 'd',
      initial: 'a',
      ...loopFields,
      states: { a: { action: 'x', next: 'done', ...state }, done: { terminal: true } },
    });
    expect(actionTimeout(d, d.states.a!)).toBe(expected);
    expect(DEFAULT_ACTION_TIMEOUT_S).toBe(3600);
  });

  it.each([
    ['mypy ${context.dir}', 'mypy src/'],
    ['echo ${env.TOKEN} ${captured.lint.output}', 'echo ${env.TOKEN} E1 E2'],
    ['echo ${captured.nope.output}', 'echo ${captured.nope.output}'],
    ['echo ${bad.ns}', 'echo ${bad.ns}'],
    ['echo $${HOME}', 'echo ${HOME}'],
  ])('displayAction(%j) → %j', (template, expected) => {
    expect(displayAction(template, full)).toBe(expected);
  });
});

describe('formatDuration (loop.elapsed)', () => {
  it.each([
    [0, '0ms'],
    [850, '850ms'],
    [12_300, '12.3s'],
    [154_000, '2m 34s'],
    [3_900_000, '1h 5m'],
  ])('%i ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("the original's modifiers", () => {
  it.each([
    ['${context.x:default=fallback}', { namespace: 'context', path: ['x'], fallback: 'fallback' }],
    ['${captured.a.output:default=}', { namespace: 'captured', path: ['a', 'output'], fallback: '' }],
    ['${context.x:default=a:b c}', { namespace: 'context', path: ['x'], fallback: 'a:b c' }],
    ['${context.x:shell}', { namespace: 'context', path: ['x'], shell: true }],
    ['${captured.a.output?}', { namespace: 'captured', path: ['a', 'output'], fallback: '' }],
    ['${prev.output?}', { namespace: 'prev', path: ['output'], fallback: '' }],
    ['${context.x:default=why?}', { namespace: 'context', path: ['x'], fallback: 'why?' }],
  ])('%s', (template, expected) => {
    expect(parseTemplate(template)).toEqual([{ kind: 'ref', raw: template, offset: 0, ...expected }]);
  });

  it('? is only a suffix of the path: elsewhere it is still an invalid segment', () => {
    expect(() => parseTemplate('${context.a?b}')).toThrow(/invalid path segment "a\?b"/);
  });

  it('an unknown modifier names the ones there are', () => {
    expect(() => parseTemplate('${context.x:upper}')).toThrow(
      /unknown modifier ":upper".*:-default, :default=default or :shell/,
    );
  });

  it.each([
    ['${context.nothing:default=none}', 'none'],
    ['${context.empty:default=none}', 'none'],
    ['${context.dir:default=none}', 'src/'],
    ['${context.dir:shell}', 'src/'],
    ['${context.n:shell}', '10'],
    ['${captured.lint.output:shell}', "'E1 E2'"],
    ['${context.empty:shell}', "''"],
    ['${context.nothing?}', ''],
    ['${context.missing?}', ''],
    ['${captured.gone.output?}', ''],
    ['${context.dir?}', 'src/'],
  ])('%s renders %s', (template, expected) => {
    expect(interpolate(template, full)).toBe(expected);
  });

  it(':shell quotes a quote', () => {
    const s = scope({ context: { q: "it's" } });
    expect(interpolate('${context.q:shell}', s)).toBe(`'it'"'"'s'`);
  });
});

import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Diagnostic } from '../../fsm/diagnostics.js';
import { routeFor } from '../../fsm/routing.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { def, defFromYaml } from './helpers.js';

/** A valid loop (a → done) with the given states and top-level fields merged in. */
const base = (states: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  name: 'x',
  description: 'd',
  initial: 'a',
  ...extra,
  states: { a: { action: 'make', on_yes: 'done', on_no: 'a' }, done: { terminal: true }, ...states },
});

const errors = (raw: unknown) => validateLoop(raw).diagnostics.filter((d) => d.severity === 'error');
const warnings = (raw: unknown) => validateLoop(raw).diagnostics.filter((d) => d.severity === 'warning');

type Expected = Partial<Omit<Diagnostic, 'message' | 'fix'>> & { message: RegExp; fix?: RegExp };

function expectOne(list: Diagnostic[], expected: Expected): void {
  const { message, fix, ...rest } = expected;
  const hit = list.filter((d) => message.test(d.message));
  expect(hit, `no diagnostic matching ${message} in ${JSON.stringify(list, null, 2)}`).toHaveLength(1);
  expect(hit[0]).toMatchObject(rest);
  if (fix) expect(hit[0]?.fix).toMatch(fix);
  if (rest.state === undefined) expect(hit[0]?.state).toBeUndefined();
}

describe('a valid loop', () => {
  it('has no diagnostics and gets its defaults', () => {
    const result = validateLoop(base());
    expect(result.diagnostics).toEqual([]);
    expect(result.definition).toMatchObject({
      max_iterations: 50,
      llm: { timeout: 1800, max_tokens: 256, enabled: true },
      context: {},
      maintain: false,
      labels: [],
      states: { a: { terminal: false, failure: false }, done: { terminal: true, failure: false } },
    });
    expect(result.definition?.llm.model).toBeUndefined();
  });

  it('keeps explicit values and partial llm settings', () => {
    const d = def(base({}, { max_iterations: 3, llm: { enabled: false } }));
    expect(d.max_iterations).toBe(3);
    expect(d.llm).toEqual({ enabled: false, timeout: 1800, max_tokens: 256, schema_retries: 2 });
  });

  it('treats the ${DEFAULT_LLM_MODEL} placeholder as the default model', () => {
    expect(def(base({}, { llm: { model: '${DEFAULT_LLM_MODEL}' } })).llm.model).toBeUndefined();
    expect(def(base({}, { llm: { model: 'haiku' } })).llm.model).toBe('haiku');
  });

  it('reads yes/no YAML keys as strings (YAML 1.2)', () => {
    const d = defFromYaml(`
name: yaml
description: d
initial: check
states:
  check:
    action: pytest
    route:
      yes: done
      no: fix
      _error: fix
  fix:
    action: make fix
    on_yes: check
    on_no: check
  done:
    terminal: true
`);
    expect(d.states.check?.route).toEqual({ yes: 'done', no: 'fix', _error: 'fix' });
    expect(routeFor(d.states.check!, 'no')).toBe('fix');
    expect(d.states.fix?.on_yes).toBe('check');
  });

  it('refuses a YAML 1.1 boolean written as yes', () => {
    expectOne(errors(parseYaml('name: x\ninitial: a\nstates:\n  a:\n    terminal: yes\n')), {
      path: ['states', 'a', 'terminal'],
      state: 'a',
      message: /expected boolean/,
    });
  });

  it.each([
    ['custom on_<verdict> keys', { a: { action: '/ll:x', on_yes: 'done', on_partial: 'a', on_needs_review: 'done' } }],
    ['$current', { a: { action: 'make', on_yes: 'done', on_no: '$current' } }],
    ['interpolated targets', { a: { action: 'make', on_yes: '${context.next:-done}', route: undefined } }],
    [
      'a decision state with source:',
      {
        a: { action: 'make', capture: 'm', next: 'b' },
        b: { evaluate: { type: 'exit_code', source: '${captured.m.exit_code}' }, on_yes: 'done', on_no: 'a' },
      },
    ],
    ['${env.X} in an action', { a: { action: 'echo ${env.HOME:-/}', next: 'done' } }],
    [
      'a reference to a state captured later',
      { a: { action: 'echo ${captured.b.output:-}', next: 'b' }, b: { action: 'x', capture: 'b', next: 'done' } },
    ],
    [
      'convergence with toward:',
      { a: { action: 'count', evaluate: { type: 'convergence', toward: 0 }, route: { target: 'done', _: 'a' } } },
    ],
  ])('accepts %s', (_label, states) => {
    expect(errors(base(states))).toEqual([]);
  });
});

describe('errors', () => {
  it.each([
    ['a string', 'hello', /must be a mapping.*but this is a string/],
    ['an empty document', null, /but this is an empty document/],
    ['a list', [1, 2], /but this is a list/],
    ['a number', 3, /but this is a number/],
  ])('a document that is %s is not a mapping', (_label, raw, message) => {
    const result = validateLoop(raw);
    expect(result.definition).toBeUndefined();
    expectOne(result.diagnostics, { severity: 'error', path: [], message, fix: /loop-format/ });
  });

  it.each([
    ['name', { initial: 'a', states: {} }],
    ['initial', { name: 'x', states: {} }],
    ['states', { name: 'x', initial: 'a' }],
  ])('missing %s', (field, raw) => {
    expectOne(errors(raw), {
      path: [field],
      message: new RegExp(`missing required field "${field}"`),
      fix: new RegExp(`add ${field}:`),
    });
  });

  it.each<[string, Record<string, unknown>, Expected]>([
    [
      'an unknown top-level field',
      base({}, { max_iteration: 3 }),
      {
        path: ['max_iteration'],
        message: /^unknown top-level field "max_iteration" \(did you mean "max_iterations"\?\)$/,
        fix: /rename it "max_iterations"/,
      },
    ],
    [
      'an unknown llm field',
      base({}, { llm: { enabeld: false } }),
      { path: ['llm', 'enabeld'], message: /unknown field "enabeld" \(did you mean "enabled"\?\)/ },
    ],
    [
      'an unknown state field',
      base({ a: { acton: 'make', next: 'done' } }),
      {
        path: ['states', 'a', 'acton'],
        state: 'a',
        message: /^unknown state field "acton" \(did you mean "action"\?\)$/,
        fix: /rename it "action"/,
      },
    ],
    [
      'an unknown state field far from any',
      base({ a: { action: 'x', next: 'done', zzzzzz: 1 } }),
      {
        path: ['states', 'a', 'zzzzzz'],
        state: 'a',
        message: /^unknown state field "zzzzzz"$/,
        fix: /allowed here: description, action/,
      },
    ],
    [
      'an unknown evaluate field',
      base({ a: { action: 'x', evaluate: { type: 'output_contains', pattern: 'p', negat: true }, on_yes: 'done' } }),
      {
        path: ['states', 'a', 'evaluate', 'negat'],
        state: 'a',
        message: /^unknown field "negat" \(did you mean "negate"\?\)$/,
      },
    ],
    [
      'a missing evaluator field',
      base({ a: { action: 'x', evaluate: { type: 'output_numeric' }, on_yes: 'done' } }),
      { path: ['states', 'a', 'evaluate', 'target'], state: 'a', message: /missing required field "target"/ },
    ],
    [
      'an on_<verdict> that is not a state name',
      base({ a: { action: 'x', on_foo: 3, next: 'done' } }),
      { path: ['states', 'a', 'on_foo'], state: 'a', message: /on_foo must name a state/ },
    ],
    [
      'an unknown evaluator type',
      base({ a: { action: 'x', evaluate: { type: 'exit_cod' }, on_yes: 'done' } }),
      {
        path: ['states', 'a', 'evaluate', 'type'],
        state: 'a',
        message: /unknown evaluator type "exit_cod" \(did you mean "exit_code"\?\)/,
        fix: /use one of exit_code, output_numeric/,
      },
    ],
    [
      'a diff_stall max_stall that is not a positive integer',
      base({ a: { action: 'x', evaluate: { type: 'diff_stall', max_stall: 1.5 }, on_yes: 'done' } }),
      { path: ['states', 'a', 'evaluate', 'max_stall'], state: 'a', message: /max_stall/ },
    ],
    [
      'an mcp_result with a field',
      base({
        a: {
          action: 's/t',
          action_type: 'mcp_tool',
          evaluate: { type: 'mcp_result', server: 's' },
          on_success: 'done',
        },
      }),
      { path: ['states', 'a', 'evaluate', 'server'], state: 'a', message: /unknown field "server"/ },
    ],
    [
      'an evaluator without type',
      base({ a: { action: 'x', evaluate: { pattern: 'p' }, on_yes: 'done' } }),
      { path: ['states', 'a', 'evaluate'], state: 'a', message: /evaluate needs a type/ },
    ],
    [
      'a bad operator',
      base({ a: { action: 'x', evaluate: { type: 'output_numeric', operator: 'lte', target: 1 }, on_yes: 'done' } }),
      {
        path: ['states', 'a', 'evaluate', 'operator'],
        state: 'a',
        message: /"eq"\|"ne"\|"lt"\|"le"\|"gt"\|"ge".*got "lte"/,
      },
    ],
    [
      'a bad capture name',
      base({ a: { action: 'x', capture: '1x', next: 'done' } }),
      { path: ['states', 'a', 'capture'], state: 'a', message: /capture names are identifiers/ },
    ],
    ['max_iterations: 0', base({}, { max_iterations: 0 }), { path: ['max_iterations'], message: /max_iterations/ }],
    [
      'an empty target',
      base({ a: { action: 'x', on_yes: '' } }),
      { path: ['states', 'a', 'on_yes'], state: 'a', message: /on_yes/ },
    ],
    // Reuse keys are expanded by the loader (docs/reuse.md); one left in a document is never ignored.
    [
      'a fragment: left unexpanded',
      base({ a: { action: 'x', fragment: 'f', next: 'done' } }),
      {
        path: ['states', 'a', 'fragment'],
        state: 'a',
        message: /^fragment: was not expanded before validation$/,
        fix: /expands from:, import:, fragments: and fragment: first/,
      },
    ],
    [
      'a from: left unexpanded',
      base({}, { from: 'parent' }),
      { path: ['from'], message: /^from: was not expanded before validation$/, fix: /docs\/reuse\.md/ },
    ],
    [
      'an import: left unexpanded',
      base({}, { import: ['lib.yaml'] }),
      { path: ['import'], message: /^import: was not expanded/ },
    ],
    [
      'a fragments: left unexpanded',
      base({}, { fragments: { f: { next: 'done' } } }),
      { path: ['fragments'], message: /^fragments: was not expanded/ },
    ],
  ])('%s', (_label, raw, expected) => {
    const result = validateLoop(raw);
    expect(result.definition).toBeUndefined();
    expectOne(result.diagnostics, { severity: 'error', ...expected });
  });

  it.each<[string, Record<string, unknown>, Expected]>([
    [
      'an undefined initial state',
      base({}, { initial: 'ab' }),
      {
        path: ['initial'],
        message: /initial state "ab" is not defined \(did you mean "a"\?\)/,
        fix: /define states\.ab or set initial: to one of a, done/,
      },
    ],
    [
      'a shorthand target that is not a state',
      base({ a: { action: 'x', on_yes: 'dnoe', on_no: 'a' } }),
      {
        path: ['states', 'a', 'on_yes'],
        state: 'a',
        message: /on_yes goes to "dnoe", which is not a state \(did you mean "done"\?\)/,
        fix: /define states\.dnoe/,
      },
    ],
    [
      'a route target that is not a state',
      base({ a: { action: 'x', route: { yes: 'done', partial: 'nowhere' } } }),
      { path: ['states', 'a', 'route', 'partial'], state: 'a', message: /route\.partial goes to "nowhere"/ },
    ],
    [
      'a next target that is not a state',
      base({ a: { next: 'later' } }),
      { path: ['states', 'a', 'next'], state: 'a', message: /next goes to "later"/ },
    ],
    [
      'a custom shorthand target that is not a state',
      base({ a: { action: 'x', on_yes: 'done', on_partial: 'nope' } }),
      { path: ['states', 'a', 'on_partial'], state: 'a', message: /on_partial goes to "nope"/ },
    ],
    [
      'no terminal state',
      { name: 'x', description: 'd', initial: 'a', states: { a: { action: 'x', on_yes: 'a' } } },
      { path: ['states'], message: /no terminal state/, fix: /terminal: true/ },
    ],
    [
      'a state with no way out',
      base({ b: { action: 'x' }, a: { next: 'b' } }),
      { path: ['states', 'b'], state: 'b', message: /no way out/, fix: /next: <state>/ },
    ],
    [
      'a state with only on_maintain',
      base({ b: { action: 'x', on_maintain: 'a' }, a: { next: 'b' } }),
      { path: ['states', 'b'], state: 'b', message: /no way out/ },
    ],
    [
      'convergence without target or toward',
      base({ a: { action: 'x', evaluate: { type: 'convergence' }, route: { target: 'done' } } }),
      { path: ['states', 'a', 'evaluate'], state: 'a', message: /convergence needs a target/, fix: /toward/ },
    ],
    [
      '${captured.X} that no state captures',
      base({ a: { action: 'echo ${captured.erors.output}', capture: 'errors', next: 'done' } }),
      {
        path: ['states', 'a', 'action'],
        state: 'a',
        message: /\$\{captured\.erors\.output\} refers to "erors", which no state captures \(did you mean "errors"\?\)/,
        fix: /capture:/,
      },
    ],
    [
      '${captured.X} in an evaluator source',
      base({
        a: {
          action: 'x',
          evaluate: { type: 'output_contains', source: '${captured.nope.output}', pattern: 'p' },
          on_yes: 'done',
        },
      }),
      { path: ['states', 'a', 'evaluate', 'source'], state: 'a', message: /refers to "nope"/ },
    ],
    [
      '${env.X} in an evaluator source',
      base({
        a: { action: 'x', evaluate: { type: 'output_contains', source: '${env.X}', pattern: 'p' }, on_yes: 'done' },
      }),
      {
        path: ['states', 'a', 'evaluate', 'source'],
        state: 'a',
        message: /\$\{env\.X\} is only allowed in action:/,
        fix: /context/,
      },
    ],
    [
      '${env.X} in a route target',
      base({ a: { action: 'x', on_yes: '${env.NEXT}', on_no: 'done' } }),
      { path: ['states', 'a', 'on_yes'], state: 'a', message: /\$\{env\.NEXT\} is only allowed in action:/ },
    ],
    [
      '${env.X} in a convergence target',
      base({ a: { action: 'x', evaluate: { type: 'convergence', target: '${env.GOAL}' }, route: { _: 'done' } } }),
      { path: ['states', 'a', 'evaluate', 'target'], state: 'a', message: /only allowed in action/ },
    ],
    [
      'a template syntax error in an action',
      base({ a: { action: 'echo ${foo.x}', next: 'done' } }),
      { path: ['states', 'a', 'action'], state: 'a', message: /unknown variable namespace in \$\{foo\.x\}/ },
    ],
    [
      'an unclosed reference in a target',
      base({ a: { action: 'x', on_yes: '${context.t', on_no: 'done' } }),
      { path: ['states', 'a', 'on_yes'], state: 'a', message: /unclosed/ },
    ],
    [
      'a context cycle',
      base({}, { context: { a: '${context.b}', b: '${context.a}' } }),
      { path: ['context', 'a'], message: /context reference cycle: a → b → a/ },
    ],
    [
      'a context value referencing captured',
      base({}, { context: { cmd: '${captured.x.output}' } }),
      {
        path: ['context', 'cmd'],
        message: /may only reference other context values/,
        fix: /move \$\{captured\.x\.output\} into the state that reads context\.cmd/,
      },
    ],
    [
      'a context value referencing the environment',
      base({}, { context: { home: '${env.HOME}' } }),
      {
        path: ['context', 'home'],
        message: /context\.home references \$\{env\.HOME\}: context values may only reference other context values/,
        fix: /write \$\{env\.HOME\} in the action that needs it .* or pass the value with --context home=VALUE/,
      },
    ],
    [
      'a context syntax error',
      base({}, { context: { cmd: '${context.x' } }),
      { path: ['context'], message: /unclosed/ },
    ],
    [
      'a sub-loop state with an action too',
      base({ a: { loop: 'child', action: 'x', next: 'done' } }),
      { path: ['states', 'a', 'action'], state: 'a', message: /either an action or a sub-loop/ },
    ],
  ])('%s', (_label, raw, expected) => {
    const result = validateLoop(raw);
    expect(result.definition).toBeUndefined();
    expectOne(result.diagnostics, { severity: 'error', ...expected });
  });
});

describe('warnings', () => {
  it('not for on_error beside next: (an action that fails takes it)', () => {
    expect(warnings(base({ a: { action: 'true', on_error: 'done', next: 'done' } }))).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, Expected]>([
    [
      'an unreachable state',
      base({ orphan: { next: 'done' } }),
      { path: ['states', 'orphan'], state: 'orphan', message: /unreachable from initial state "a"/, fix: /delete it/ },
    ],
    [
      'no description',
      { ...base(), description: undefined },
      { path: ['name'], message: /no description/, fix: /description:/ },
    ],
    [
      'route and shorthand both set',
      base({ a: { action: 'x', route: { yes: 'done' }, on_no: 'a' } }),
      { path: ['states', 'a'], state: 'a', message: /both route: and on_\* shorthand/, fix: /into route:/ },
    ],
    [
      'a verdict route beside next: (next always wins)',
      base({ a: { action: 'true', on_yes: 'done', next: 'a' } }),
      {
        path: ['states', 'a', 'on_yes'],
        state: 'a',
        message: /on_yes is never used: this state has next: a, which it always takes/,
        fix: /remove next: to route on the verdict, or remove on_yes/,
      },
    ],
    [
      'a misspelt route beside next:',
      base({ a: { action: 'true', on_sucess: 'done', next: 'done' } }),
      { path: ['states', 'a', 'on_sucess'], state: 'a', message: /on_sucess is never used/ },
    ],
    [
      'failure: true on a state that is not terminal',
      base({ a: { action: 'true', on_yes: 'done', on_no: 'a', failure: true } }),
      {
        path: ['states', 'a', 'failure'],
        state: 'a',
        message: /failure: true only marks a terminal state; this state is not one/,
        fix: /add terminal: true, or remove failure:/,
      },
    ],
    [
      'routes on a terminal state',
      base({ done: { terminal: true, next: 'a', on_no: 'a' } }),
      {
        path: ['states', 'done', 'next'],
        state: 'done',
        message: /next, on_no are never taken: a terminal state ends the run once its action ran/,
        fix: /remove next, on_no, or remove terminal: true/,
      },
    ],
    [
      'evaluate on a next: state',
      base({ a: { action: 'x', next: 'done', evaluate: { type: 'exit_code' } } }),
      { path: ['states', 'a', 'evaluate'], state: 'a', message: /evaluate is ignored/ },
    ],
    [
      'an undefined context variable',
      base({ a: { action: 'echo ${context.zz}', next: 'done' } }),
      {
        path: ['states', 'a', 'action'],
        state: 'a',
        message: /\$\{context\.zz\} is not defined in context:/,
        fix: /--context zz=VALUE/,
      },
    ],
    [
      'an inherited name as a context variable',
      base({ a: { action: 'echo ${context.constructor}', next: 'done' } }),
      { path: ['states', 'a', 'action'], state: 'a', message: /\$\{context\.constructor\} is not defined/ },
    ],
    [
      'llm_structured with the LLM disabled',
      base(
        { a: { action: 'x', evaluate: { type: 'llm_structured' }, on_yes: 'done', on_error: 'done' } },
        { llm: { enabled: false } },
      ),
      { path: ['states', 'a', 'evaluate'], state: 'a', message: /LLM evaluation disabled gives an error verdict/ },
    ],
    [
      'a decision state without source (it judges an empty output, as in little-loops)',
      base({ a: { evaluate: { type: 'exit_code' }, on_yes: 'done' } }),
      {
        path: ['states', 'a', 'evaluate'],
        state: 'a',
        message: /nothing to evaluate: it judges an empty output, as in little-loops/,
        fix: /source: "\$\{prev\.output\}"/,
      },
    ],
    [
      'a prompt with the LLM disabled',
      base({ a: { action: '/ll:check', on_yes: 'done', on_no: 'a' } }, { llm: { enabled: false } }),
      { path: ['states', 'a'], state: 'a', message: /judged by the host CLI exit code/ },
    ],
  ])('%s', (_label, raw, expected) => {
    const result = validateLoop(raw);
    expect(result.definition).toBeDefined();
    expectOne(warnings(raw), { severity: 'warning', ...expected });
  });

  it.each([
    ['a defaulted context variable', base({ a: { action: 'echo ${context.zz:-x}', next: 'done' } })],
    ['a defined context variable', base({ a: { action: 'echo ${context.zz}', next: 'done' } }, { context: { zz: 1 } })],
    [
      'states reached only through interpolated targets',
      base(
        { a: { action: 'x', on_yes: '${context.t}', on_no: 'done' }, other: { next: 'done' } },
        { context: { t: 'other' } },
      ),
    ],
  ])('no warning for %s', (_label, raw) => {
    expect(warnings(raw)).toEqual([]);
  });
});

describe('editor JSON Schema', () => {
  it('is derived from the zod schema, with defaults, closed states and on_<verdict> routes', async () => {
    const { loopJsonSchema } = await import('../../fsm/schema.js');
    const schema = loopJsonSchema() as { required: string[]; properties: Record<string, any> };
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'initial', 'states']));
    expect(schema.properties.max_iterations.default).toBe(50);
    const state = schema.properties.states.additionalProperties;
    expect(state.additionalProperties).toBe(false);
    expect(Object.keys(state.patternProperties)).toEqual(['^on_[A-Za-z0-9_]+$']);
    expect(state.properties.evaluate.oneOf.length).toBeGreaterThanOrEqual(7);
  });

  it("describes the file as written: from:, import:, fragments: and a state's fragment: are accepted there", async () => {
    const { loopJsonSchema } = await import('../../fsm/schema.js');
    const schema = loopJsonSchema() as { properties: Record<string, any> };
    expect(schema.properties.from).toMatchObject({ type: 'string', minLength: 1 });
    expect(schema.properties.import).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(schema.properties.fragments).toMatchObject({ type: 'object' });
    expect(schema.properties.states.additionalProperties.properties.fragment).toMatchObject({ type: 'string' });
    expect(JSON.stringify(schema.properties.from)).not.toContain('$schema');
  });
});

describe('shell actions are checked for unsafe data placement before the run', () => {
  it('a captured value in a quoted here-document is valid (it is written into the body as it is)', async () => {
    const { validateLoop } = await import('../../fsm/definition/validate.js');
    const result = validateLoop({
      name: 'x',
      description: 'd',
      initial: 'a',
      states: {
        a: { action: 'echo 1', capture: 'n', next: 'b' },
        b: { action: "cat > notes.md <<'EOF'\n${captured.n.output}\nEOF\n", next: 'done' },
        done: { terminal: true },
      },
    });
    expect(result.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
    expect(result.definition).toBeDefined();
  });

  it.each([
    ['echo $(( ${captured.n.output} + 1 ))', 'arithmetic'],
    ["cat <<'EOF'\n${env.TOKEN}\nEOF\n", 'quoted here-document'],
  ])('%s', async (action, message) => {
    const { validateLoop } = await import('../../fsm/definition/validate.js');
    const result = validateLoop({
      name: 'x',
      description: 'd',
      initial: 'a',
      states: {
        a: { action: 'echo 1', capture: 'n', next: 'b' },
        b: { action, next: 'done' },
        done: { terminal: true },
      },
    });
    expect(result.definition).toBeUndefined();
    const d = result.diagnostics.find((x) => x.path.join('.') === 'states.b.action');
    expect(d?.message).toContain(message);
  });
});

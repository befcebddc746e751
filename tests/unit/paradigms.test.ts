/**
 * Paradigm compilers (fsm/definition/paradigms/): seed 000's examples compile to exactly the FSM seed 000
 * shows (`iterative`: paradigm-iterative.test.ts); bad documents to diagnostics naming the field, its path and a fix.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileParadigm } from '../../fsm/definition/paradigms/index.js';
import { constraintStems, goalName } from '../../fsm/definition/paradigms/names.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { toFsmYaml } from '../../loader/fsm-yaml.js';
import { compiled, problems } from './helpers.js';

const yaml = (text: string) => parse(text, { version: '1.2' }) as Record<string, unknown>;

/** Seed 000 "Paradigm Definitions": each example paradigm file and the FSM it shows, verbatim. */
const SEED_EXAMPLES: Array<{ paradigm: string; source: string; fsm: string }> = [
  {
    paradigm: 'goal',
    source: `
paradigm: goal
goal: "No type errors in src/"
tools:
  - /ll:check_code types
  - /ll:manage_issue bug fix
max_iterations: 20
`,
    fsm: `
name: "goal-no-type-errors"
initial: "evaluate"
states:
  evaluate:
    action: "/ll:check_code types"
    on_success: "done"
    on_failure: "fix"
  fix:
    action: "/ll:manage_issue bug fix"
    next: "evaluate"
  done:
    terminal: true
max_iterations: 20
`,
  },
  {
    paradigm: 'convergence',
    source: `
paradigm: convergence
name: "reduce-lint-errors"
check: "ruff check src/ --output-format=json | jq '.count'"
toward: 0
using: "/ll:check_code fix"
tolerance: 0  # optional: stop when within tolerance of target
`,
    // Seed 000 also writes previous: "${prev.output}", which is the output of `apply` there, not the
    // last measurement (docs/paradigms.md): the compiler leaves it out.
    fsm: `
name: "reduce-lint-errors"
initial: "measure"
context:
  metric_cmd: "ruff check src/ --output-format=json | jq '.count'"
  target: 0
  tolerance: 0
states:
  measure:
    action: "\${context.metric_cmd}"
    capture: "current_value"
    evaluate:
      type: convergence
      target: "\${context.target}"
      tolerance: "\${context.tolerance}"
    route:
      target: "done"
      progress: "apply"
      stall: "done"
  apply:
    action: "/ll:check_code fix"
    next: "measure"
  done:
    terminal: true
`,
  },
  {
    paradigm: 'invariants',
    source: `
paradigm: invariants
name: "code-quality-guardian"
constraints:
  - name: "tests-pass"
    check: "pytest"
    fix: "/ll:manage_issue bug fix"
  - name: "lint-clean"
    check: "ruff check src/"
    fix: "/ll:check_code fix"
  - name: "types-valid"
    check: "mypy src/"
    fix: "/ll:manage_issue bug fix"
maintain: true  # continuous mode
`,
    fsm: `
name: "code-quality-guardian"
initial: "check_tests"
states:
  check_tests:
    action: "pytest"
    on_success: "check_lint"
    on_failure: "fix_tests"
  fix_tests:
    action: "/ll:manage_issue bug fix"
    next: "check_tests"
  check_lint:
    action: "ruff check src/"
    on_success: "check_types"
    on_failure: "fix_lint"
  fix_lint:
    action: "/ll:check_code fix"
    next: "check_lint"
  check_types:
    action: "mypy src/"
    on_success: "all_valid"
    on_failure: "fix_types"
  fix_types:
    action: "/ll:manage_issue bug fix"
    next: "check_types"
  all_valid:
    terminal: true
    on_maintain: "check_tests"  # restart if maintain=true
maintain: true
`,
  },
  {
    paradigm: 'imperative',
    source: `
paradigm: imperative
name: "fix-all-types"
steps:
  - /ll:check_code types
  - /ll:manage_issue bug fix
until:
  check: "mypy src/"
  passes: true
max_iterations: 20
backoff: 2  # seconds between iterations
`,
    fsm: `
name: "fix-all-types"
initial: "step_0"
states:
  step_0:
    action: "/ll:check_code types"
    next: "step_1"
  step_1:
    action: "/ll:manage_issue bug fix"
    next: "check_done"
  check_done:
    action: "mypy src/"
    on_success: "done"
    on_failure: "step_0"
  done:
    terminal: true
max_iterations: 20
backoff: 2
`,
  },
];

describe("seed 000's examples compile to exactly the FSM seed 000 shows", () => {
  it.each(SEED_EXAMPLES)('$paradigm', ({ source, fsm }) => {
    const out = compiled(yaml(source));
    expect(out).toStrictEqual(yaml(fsm));
    expect(validateLoop(out).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it.each(SEED_EXAMPLES)('$paradigm: the YAML of the compiled FSM reads back as the same FSM', ({ source }) => {
    const out = compiled(yaml(source));
    expect(yaml(toFsmYaml(out))).toStrictEqual(out);
  });

  it('FSM (Direct) needs no compilation: paradigm: fsm only loses the key, no paradigm: is untouched', () => {
    const direct = yaml(`
paradigm: fsm
name: lint-fix-cycle
initial: check
states:
  check: { action: "/ll:check_code lint", on_success: done, on_failure: fix }
  fix: { action: "/ll:check_code fix", next: check }
  done: { terminal: true }
max_iterations: 10
`);
    const { paradigm: _paradigm, ...withoutKey } = direct;
    expect(compiled(direct)).toStrictEqual(withoutKey);
    expect(compileParadigm(withoutKey).raw).toBe(withoutKey);
  });
});

describe('variations the seed implies', () => {
  it('invariants without maintain: no on_maintain on all_valid, and the last check goes to all_valid', () => {
    const out = compiled({
      paradigm: 'invariants',
      name: 'x',
      constraints: [{ name: 'tests-pass', check: 'pytest', fix: 'fixer' }],
    });
    expect(out).toStrictEqual({
      name: 'x',
      initial: 'check_tests',
      states: {
        check_tests: { action: 'pytest', on_success: 'all_valid', on_failure: 'fix_tests' },
        fix_tests: { action: 'fixer', next: 'check_tests' },
        all_valid: { terminal: true },
      },
    });
  });

  it('imperative until.passes: false stops when the check fails', () => {
    const out = compiled({
      paradigm: 'imperative',
      name: 'x',
      steps: ['a'],
      until: { check: 'grep -q TODO notes', passes: false },
    });
    expect((out.states as Record<string, unknown>).check_done).toStrictEqual({
      action: 'grep -q TODO notes',
      on_success: 'step_0',
      on_failure: 'done',
    });
    expect((out.states as Record<string, unknown>).step_0).toStrictEqual({ action: 'a', next: 'check_done' });
  });

  it('convergence: tolerance defaults to 0, direction reaches the evaluator, the author context is kept after the generated keys', () => {
    const out = compiled({
      paradigm: 'convergence',
      name: 'cov',
      check: 'cov.sh',
      toward: 90,
      using: 'add-tests',
      direction: 'maximize',
      context: { pkg: 'api' },
    });
    expect(out.context).toStrictEqual({ metric_cmd: 'cov.sh', target: 90, tolerance: 0, pkg: 'api' });
    expect(Object.keys(out.context as object)).toEqual(['metric_cmd', 'target', 'tolerance', 'pkg']);
    const measure = (out.states as Record<string, Record<string, unknown>>).measure!;
    expect(measure.evaluate).toStrictEqual({
      type: 'convergence',
      target: '${context.target}',
      tolerance: '${context.tolerance}',
      direction: 'maximize',
    });
  });

  it('loop-level settings pass through unchanged; defaults are not added', () => {
    const settings = {
      description: 'd',
      max_iterations: 7,
      max_steps: 30,
      timeout: 600,
      labels: ['ci'],
      llm: { model: 'haiku' },
      scope: ['src/'],
      parameters: { dir: { type: 'path', default: 'src' } },
    };
    const out = compiled({ paradigm: 'goal', goal: 'Lint clean', tools: ['lint', 'fix'], ...settings });
    expect(out).toMatchObject(settings);
    expect(out).not.toHaveProperty('maintain');
    expect(out).not.toHaveProperty('context');
    expect(out.name).toBe('goal-lint-clean');
  });
});

describe('derived names', () => {
  it.each([
    ['No type errors in src/', 'goal-no-type-errors'],
    ['Tests pass', 'goal-tests-pass'],
    ['All API tests pass under Node 20', 'goal-all-api-tests-pass'],
    ['Zero failing integration tests in the api package', 'goal-zero-failing-integration-tests'],
    ['Coverage >= 80%', 'goal-coverage-80'],
  ])('goal %j → %s', (goal, name) => {
    expect(goalName(goal)).toBe(name);
  });

  it('a goal with no words before its scope has no name: the author must give one', () => {
    expect(goalName('in src/')).toBeUndefined();
    const [d] = problems({ paradigm: 'goal', goal: '!!! in src', tools: ['a', 'b'] });
    expect(d).toMatchObject({ path: ['goal'], fix: 'add name: <loop-name>' });
  });

  it.each([
    [
      ['tests-pass', 'lint-clean', 'types-valid'],
      ['tests', 'lint', 'types'],
    ],
    [
      ['no-flaky-tests', 'Docs OK'],
      ['no_flaky_tests', 'docs'],
    ],
    [['pass'], ['pass']],
    [
      ['lint-clean', 'lint-valid'],
      ['lint_clean', 'lint_valid'],
    ],
    [
      ['lint-clean', 'lint'],
      ['lint_clean', 'lint'],
    ],
    [
      ['lint clean', 'Lint-Clean'],
      [undefined, undefined],
    ],
    [['???'], [undefined]],
  ])('constraint names %j → stems %j', (names, stems) => {
    expect(constraintStems(names)).toEqual(stems);
  });
});

describe('bad paradigm documents', () => {
  it('an unknown paradigm lists the known ones, with a did-you-mean', () => {
    const [d] = problems({ paradigm: 'goals', name: 'x' });
    expect(d).toMatchObject({ severity: 'error', path: ['paradigm'] });
    expect(d!.message).toContain('unknown paradigm "goals" (did you mean "goal"?)');
    expect(d!.message).toContain('known paradigms: goal, convergence, invariants, imperative, iterative, fsm');
  });

  it('a paradigm that is not text is unknown too', () => {
    expect(problems({ paradigm: 3 })[0]!.message).toContain('unknown paradigm 3');
  });

  const convergence = { paradigm: 'convergence', name: 'c', check: 'count.sh', toward: 0, using: 'fix.sh' };

  it.each([
    [
      'missing toward',
      { ...convergence, toward: undefined },
      ['toward'],
      'missing required field "toward" for paradigm: convergence',
      'add toward: 0',
    ],
    [
      'missing using',
      { ...convergence, using: undefined },
      ['using'],
      'missing required field "using"',
      'add using: "/ll:check_code fix"',
    ],
    [
      'toward as words',
      { ...convergence, toward: 'zero' },
      ['toward'],
      'toward must be the target number',
      'write toward: 0',
    ],
    [
      'negative tolerance',
      { ...convergence, tolerance: -1 },
      ['tolerance'],
      'tolerance must be a number of 0 or more',
      'write tolerance: 0',
    ],
    [
      'max_iterations as words',
      { ...convergence, max_iterations: 'ten' },
      ['max_iterations'],
      'max_iterations must be a whole number of 1 or more (got "ten")',
      'write max_iterations: 20',
    ],
    [
      'constraints as text',
      { paradigm: 'invariants', name: 'i', constraints: 'x' },
      ['constraints'],
      'constraints must be a list of one or more constraints',
      'write constraints: [{',
    ],
    [
      'a constraint without fix',
      { paradigm: 'invariants', name: 'i', constraints: [{ name: 'a', check: 'b' }] },
      ['constraints', 0, 'fix'],
      'missing required field "fix" in constraints[0]',
      'add fix: "/ll:manage_issue bug fix"',
    ],
    [
      'goal with three tools',
      { paradigm: 'goal', goal: 'g', tools: ['a', 'b', 'c'] },
      ['tools'],
      'tools must be a list of two actions',
      'write tools: [',
    ],
    [
      'steps empty',
      { paradigm: 'imperative', name: 'm', steps: [], until: { check: 'c' } },
      ['steps'],
      'steps must be a list of one or more actions',
      'write steps: [',
    ],
    [
      'until.passes as text',
      { paradigm: 'imperative', name: 'm', steps: ['a'], until: { check: 'c', passes: 'yes' } },
      ['until', 'passes'],
      'until.passes must be true (stop when the check passes) or false',
      'write until.passes: true',
    ],
    [
      'a missing name',
      { ...convergence, name: undefined },
      ['name'],
      'missing required field "name"',
      'add name: my-loop',
    ],
  ])('%s: names the field and its path, with a fix', (_label, doc, path, message, fix) => {
    const clean = Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== undefined));
    const found = problems(clean).find((d) => JSON.stringify(d.path) === JSON.stringify(path));
    expect(found, JSON.stringify(problems(clean))).toBeDefined();
    expect(found!.severity).toBe('error');
    expect(found!.message).toContain(message);
    expect(found!.fix).toContain(fix);
  });

  it.each([
    [{ ...convergence, tolerence: 1 }, ['tolerence'], 'did you mean "tolerance"?', 'rename it to "tolerance"'],
    [
      { paradigm: 'invariants', name: 'i', constraints: [{ name: 'a', check: 'b', fixx: 'c' }] },
      ['constraints', 0, 'fixx'],
      'unknown field "fixx" in constraints[0] (did you mean "fix"?)',
      'rename it to "fix"',
    ],
    [
      { paradigm: 'imperative', name: 'm', steps: ['a'], until: { chek: 'c' } },
      ['until', 'chek'],
      'did you mean "check"?',
      'rename it to "check"',
    ],
    [
      {
        paradigm: 'iterative',
        name: 'it',
        input: 'x',
        executor: { prompt: '${captured.input.output}' },
        test_command: 't',
        controler: 'c',
      },
      ['controler'],
      'did you mean "controller"?',
      'rename it to "controller"',
    ],
    [{ ...convergence, llm: { modle: 'haiku' } }, ['llm', 'modle'], 'did you mean "model"?', 'rename it to "model"'],
  ])(
    'unknown field %#: did-you-mean and a rename (and no "missing" for the field it stands for)',
    (doc, path, message, fix) => {
      const ds = problems(doc);
      expect(ds).toHaveLength(1);
      const [d] = ds;
      expect(d).toMatchObject({ severity: 'error', path });
      expect(d!.message).toContain(message);
      expect(d!.fix).toBe(fix);
    },
  );

  it('states: in a paradigm file says the compiler writes them', () => {
    const [d] = problems({ ...convergence, states: {} });
    expect(d).toMatchObject({ path: ['states'] });
    expect(d!.message).toContain('the convergence compiler generates the states');
    expect(d!.fix).toContain('paradigm: fsm');
  });

  it('one diagnostic per problem', () => {
    const ds = problems({ paradigm: 'convergence', name: 'c', toward: 'x', max_iterations: 0, extra: 1 });
    expect(ds.map((d) => d.path).sort()).toEqual(
      [['check'], ['extra'], ['max_iterations'], ['toward'], ['using']].sort(),
    );
  });

  it('invariants with constraints whose state names would be the same', () => {
    const [d] = problems({
      paradigm: 'invariants',
      name: 'i',
      constraints: [
        { name: 'lint clean', check: 'a', fix: 'b' },
        { name: 'Lint-Clean', check: 'c', fix: 'd' },
      ],
    });
    expect(d).toMatchObject({ path: ['constraints', 0, 'name'] });
    expect(d!.message).toContain('gives the same state names as constraints[1] ("Lint-Clean")');
  });

  it.each([
    [
      'convergence',
      { ...convergence, context: { target: 5 } },
      ['context', 'target'],
      'context.target is set by the convergence compiler (from toward:)',
    ],
    [
      'iterative',
      {
        paradigm: 'iterative',
        name: 'it',
        input: 'x',
        executor: 'run ${captured.input.output}',
        test_command: 't',
        context: { input: 'y' },
      },
      ['context', 'input'],
      'context.input is set by the iterative compiler',
    ],
  ])('%s: an author context key the compiler defines', (_p, doc, path, message) => {
    const [d] = problems(doc);
    expect(d).toMatchObject({ path });
    expect(d!.message).toContain(message);
  });

  it.each([
    ['{ shell }', { shell: './attempt.sh' }, ['executor', 'shell']],
    ['a shell command', 'make attempt', ['executor']],
  ])('iterative: a %s executor that never reads the input', (_what, executor, path) => {
    const [d] = problems({ paradigm: 'iterative', name: 'it', input: 'x', executor, test_command: 't' });
    expect(d).toMatchObject({ path });
    expect(d!.message).toContain('the shell executor never reads the current input');
    expect(d!.fix).toContain('${captured.input.output}');
  });

  it('iterative: an executor that is neither text nor { prompt } / { shell }', () => {
    const [d] = problems({ paradigm: 'iterative', name: 'it', input: 'x', executor: { bash: 'x' }, test_command: 't' });
    expect(d).toMatchObject({ path: ['executor'] });
    expect(d!.message).toContain(
      'executor must be an action: text (a shell command, or a /slash command), or { prompt: text } or { shell: text }',
    );
  });

  it('iterative: a malformed executor template is reported at the executor', () => {
    const [d] = problems({
      paradigm: 'iterative',
      name: 'it',
      input: 'x',
      executor: 'run ${captured.input.output',
      test_command: 't',
    });
    expect(d).toMatchObject({ path: ['executor'] });
    expect(d!.message).toContain('unclosed ${');
  });
});

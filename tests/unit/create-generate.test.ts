/**
 * `ll-loop create` generation: answers → paradigm document (seed 000) → the compiled FSM, for
 * every kind of loop, compared with the shapes seeds 000 and 001 show.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { prompt, shell } from '../../client/create/actions.js';
import { baseName, type Answers, type CheckAnswer } from '../../client/create/answers.js';
import { generateLoop, GenerationError } from '../../client/create/generate.js';
import { formatInterval, paradigmDocument } from '../../client/create/paradigm.js';
import { validateLoop } from '../../fsm/definition/validate.js';

const TYPES: CheckAnswer = { id: 'types', topic: 'types', command: 'mypy src/', fix: prompt('Fix the type errors') };
const LINT: CheckAnswer = { id: 'lint', topic: 'lint', command: 'ruff check src/', fix: prompt('/ll:check-code fix') };

/** Seed 001's `/ll:create-loop` example result, as written there. */
const SEED_001_EXAMPLE = {
  name: 'fix-types-and-lint',
  initial: 'check_types',
  max_iterations: 10,
  states: {
    check_types: { action: 'mypy src/', on_yes: 'check_lint', on_no: 'fix_types' },
    fix_types: { action: '/ll:manage-issue bug fix', next: 'check_types' },
    check_lint: { action: 'ruff check src/', on_yes: 'all_valid', on_no: 'fix_lint' },
    fix_lint: { action: '/ll:check-code fix', next: 'check_lint' },
    all_valid: { terminal: true },
  },
};

/** A state's transitions, with seed 000's on_success/on_failure read as seed 001's on_yes/on_no. */
function shape(fsm: Record<string, unknown>) {
  const states = fsm.states as Record<string, Record<string, unknown>>;
  return {
    initial: fsm.initial,
    max_iterations: fsm.max_iterations,
    states: Object.fromEntries(
      Object.entries(states).map(([name, s]) => [
        name,
        {
          yes: s.on_yes ?? s.on_success,
          no: s.on_no ?? s.on_failure,
          next: s.next,
          terminal: s.terminal,
          on_maintain: s.on_maintain,
        },
      ]),
    ),
  };
}

function valid(fsm: Record<string, unknown>) {
  const result = validateLoop(structuredClone(fsm));
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.definition!;
}

describe('fix until clean → invariants', () => {
  const answers: Answers = { kind: 'fix', name: 'fix-types-and-lint', maxAttempts: 10, checks: [TYPES, LINT] };

  it('builds the invariants document seed 000 shows for the session', () => {
    expect(paradigmDocument(answers).doc).toEqual({
      paradigm: 'invariants',
      name: 'fix-types-and-lint',
      description: 'Run `mypy src/` and `ruff check src/`; fix what fails until all pass.',
      constraints: [
        { name: 'types', check: 'mypy src/', fix: 'Fix the type errors' },
        { name: 'lint', check: 'ruff check src/', fix: '/ll:check-code fix' },
      ],
      max_iterations: 10,
    });
  });

  it("compiles to seed 001's example FSM: same states, transitions and limit", () => {
    const { fsm } = generateLoop(answers);
    expect(shape(fsm)).toEqual(shape(SEED_001_EXAMPLE));
    expect(fsm.name).toBe('fix-types-and-lint');
    expect(fsm.maintain).toBeUndefined();
    valid(fsm);
  });

  it('marks a prompt that does not start with "/" as action_type: prompt; a slash command needs nothing', () => {
    const states = generateLoop(answers).fsm.states as Record<string, Record<string, unknown>>;
    expect(states.fix_types).toEqual({ action: 'Fix the type errors', action_type: 'prompt', next: 'check_types' });
    expect(states.fix_lint).toEqual({ action: '/ll:check-code fix', next: 'check_lint' });
    expect(states.check_types!.action_type).toBeUndefined();
  });

  it('a shell fix that looks like a slash command is marked action_type: shell', () => {
    const odd: Answers = { ...answers, checks: [{ ...TYPES, fix: shell('/ll:tool') }] };
    expect((generateLoop(odd).fsm.states as Record<string, Record<string, unknown>>).fix_types).toMatchObject({
      action: '/ll:tool',
      action_type: 'shell',
    });
  });

  it('state names follow the compiler stems, even for ids ending in a status word', () => {
    const checks: CheckAnswer[] = [
      { id: 'tests_pass', topic: 'tests', command: 'pytest', fix: prompt('Make the tests pass') },
    ];
    const states = generateLoop({ kind: 'fix', name: 'x', maxAttempts: 3, checks }).fsm.states as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(states)).toEqual(['check_tests', 'fix_tests', 'all_valid']);
    expect(states.fix_tests!.action_type).toBe('prompt');
  });

  it('the YAML is the FSM, keys in reading order, without a paradigm: key', () => {
    const { yaml, fsm } = generateLoop(answers);
    expect(parse(yaml)).toEqual(fsm);
    expect(yaml).not.toContain('paradigm');
    expect(yaml.indexOf('name:')).toBeLessThan(yaml.indexOf('initial:'));
    expect(yaml.indexOf('initial:')).toBeLessThan(yaml.indexOf('states:'));
  });
});

describe('maintain constraints → invariants with maintain: true', () => {
  it('restarts at the first check after the interval', () => {
    const answers: Answers = {
      kind: 'constraints',
      name: 'guard',
      maxAttempts: 20,
      checks: [TYPES, LINT],
      intervalS: 300,
    };
    const { fsm, paradigm } = generateLoop(answers);
    expect(paradigm).toMatchObject({ paradigm: 'invariants', maintain: true, maintain_delay: 300 });
    expect(fsm).toMatchObject({ maintain: true, maintain_delay: 300, max_iterations: 20, initial: 'check_types' });
    expect((fsm.states as Record<string, unknown>).all_valid).toEqual({ terminal: true, on_maintain: 'check_types' });
    expect(fsm.description).toBe(
      'Keep `mypy src/` and `ruff check src/` passing: re-check every 5m and fix what breaks.',
    );
    expect(valid(fsm).maintain).toBe(true);
  });

  it('no wait writes no maintain_delay', () => {
    const { fsm } = generateLoop({ kind: 'constraints', name: 'g', maxAttempts: 5, checks: [TYPES], intervalS: 0 });
    expect(fsm.maintain_delay).toBeUndefined();
    expect(fsm.description).toContain('re-check continuously');
  });
});

describe('drive a metric → convergence', () => {
  const base = {
    kind: 'metric',
    name: 'reduce-metric',
    maxAttempts: 8,
    measure: 'ruff check . | wc -l',
    target: 0,
    tolerance: 0,
    improve: prompt('/ll:check-code fix'),
  } as const;

  it("compiles to seed 000's convergence FSM (minimize: no direction written), less its previous: ${prev.output}", () => {
    const { fsm } = generateLoop({ ...base, direction: 'minimize' });
    expect(fsm).toMatchObject({
      initial: 'measure',
      context: { metric_cmd: 'ruff check . | wc -l', target: 0, tolerance: 0 },
      max_iterations: 8,
      states: {
        measure: {
          action: '${context.metric_cmd}',
          capture: 'current_value',
          route: { target: 'done', progress: 'apply', stall: 'done' },
        },
        apply: { action: '/ll:check-code fix', next: 'measure' },
        done: { terminal: true },
      },
    });
    const states = fsm.states as Record<string, Record<string, Record<string, unknown>>>;
    // `previous` would read apply's output, not the last measurement (docs/paradigms.md).
    expect(states.measure!.evaluate).toStrictEqual({
      type: 'convergence',
      target: '${context.target}',
      tolerance: '${context.tolerance}',
    });
    valid(fsm);
  });

  it('maximize is written to the evaluator; a prompt improvement is marked', () => {
    const { fsm } = generateLoop({
      ...base,
      name: 'raise',
      direction: 'maximize',
      target: 90,
      improve: prompt('Add tests for uncovered code'),
    });
    const states = fsm.states as Record<string, Record<string, unknown>>;
    expect(states.measure!.evaluate).toMatchObject({ direction: 'maximize' });
    expect(states.apply).toEqual({ action: 'Add tests for uncovered code', action_type: 'prompt', next: 'measure' });
    valid(fsm);
  });
});

describe('run a sequence → imperative', () => {
  it("compiles to seed 000's imperative FSM, each step as the kind it was given", () => {
    const answers: Answers = {
      kind: 'sequence',
      name: 'build-fix',
      maxAttempts: 20,
      steps: [shell('npm run build'), prompt('Fix the build errors'), prompt('/ll:commit')],
      until: 'npm run build',
    };
    const { fsm } = generateLoop(answers);
    expect(fsm).toEqual({
      name: 'build-fix',
      description: 'Run 3 steps in order until `npm run build` passes.',
      max_iterations: 20,
      initial: 'step_0',
      states: {
        step_0: { action: 'npm run build', next: 'step_1' },
        step_1: { action: 'Fix the build errors', action_type: 'prompt', next: 'step_2' },
        step_2: { action: '/ll:commit', next: 'check_done' },
        check_done: { action: 'npm run build', on_success: 'done', on_failure: 'step_0' },
        done: { terminal: true },
      },
    });
    valid(fsm);
  });
});

describe('bad answers', () => {
  it('an empty command is a GenerationError naming the paradigm field', () => {
    const answers: Answers = { kind: 'sequence', name: 's', maxAttempts: 1, steps: [shell('make')], until: '' };
    expect(() => generateLoop(answers)).toThrow(GenerationError);
    expect(() => generateLoop(answers)).toThrow(/until\.check/);
  });
});

describe('derived names', () => {
  it.each<[string, Parameters<typeof baseName>[0]]>([
    ['fix-types-and-lint', { kind: 'fix', maxAttempts: 1, checks: [TYPES, LINT] }],
    ['fix-types', { kind: 'fix', maxAttempts: 1, checks: [TYPES] }],
    ['fix-types-lint-and-tests-2', { kind: 'fix', maxAttempts: 1, checks: [TYPES, LINT, { ...TYPES, id: 'tests_2' }] }],
    ['guard-lint', { kind: 'constraints', maxAttempts: 1, checks: [LINT], intervalS: 60 }],
    [
      'reduce-metric',
      {
        kind: 'metric',
        maxAttempts: 1,
        measure: 'x',
        direction: 'minimize',
        target: 0,
        tolerance: 0,
        improve: prompt('p'),
      },
    ],
    [
      'raise-metric',
      {
        kind: 'metric',
        maxAttempts: 1,
        measure: 'x',
        direction: 'maximize',
        target: 0,
        tolerance: 0,
        improve: prompt('p'),
      },
    ],
    ['run-steps', { kind: 'sequence', maxAttempts: 1, steps: [shell('a')], until: 'b' }],
  ])('%s', (name, draft) => {
    expect(baseName(draft)).toBe(name);
  });

  it.each([
    [90, '90s'],
    [60, '1m'],
    [300, '5m'],
    [3600, '1h'],
    [5400, '90m'],
  ])('interval %i reads %s', (s, text) => {
    expect(formatInterval(s)).toBe(text);
  });
});

describe('create --approve: a person approves the result before the loop ends', () => {
  const seq: Answers = {
    kind: 'sequence',
    name: 'steps',
    maxAttempts: 5,
    steps: [shell('npm run build')],
    until: 'npm test',
    approval: { timeoutS: 4 * 3600 },
  };

  it('routes into an approval human state before the success terminal; no ends in a failure terminal', () => {
    const { fsm, yaml } = generateLoop(seq);
    const states = fsm.states as Record<string, Record<string, unknown>>;
    expect(states.check_done).toMatchObject({ on_success: 'approve' });
    expect(states.approve).toMatchObject({
      action_type: 'human',
      ask: 'approval',
      timeout: 14400,
      on_yes: 'done',
      on_no: 'not_approved',
    });
    expect(states.not_approved).toEqual({ terminal: true, failure: true });
    const loaded = validateLoop(parse(yaml));
    expect(loaded.definition).toBeDefined();
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('refuses a loop that never ends by itself', () => {
    const guard: Answers = {
      kind: 'constraints',
      name: 'guard',
      maxAttempts: 5,
      intervalS: 60,
      checks: [{ id: 'tests', topic: 'tests', command: 'npm test', fix: prompt('fix it') }],
      approval: { timeoutS: 60 },
    };
    expect(() => generateLoop(guard)).toThrow(/never ends by itself/);
  });
});

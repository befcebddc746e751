/**
 * `validate` warns about verdicts an evaluator can produce that no route handles, routes for a
 * verdict it never answers (an `on_sucess:` typo), and about a
 * convergence `previous:` that reads another state's output; the wizard's loops, the paradigm
 * compilers' output and the bundled loops get none of these warnings.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prompt, shell } from '../../client/create/actions.js';
import type { Answers } from '../../client/create/answers.js';
import { generateLoop } from '../../client/create/generate.js';
import type { Diagnostic } from '../../fsm/diagnostics.js';
import { evaluatePure } from '../../fsm/evaluators/index.js';
import { EVALUATOR_VERDICTS } from '../../fsm/evaluators/verdicts.js';
import { compileParadigm } from '../../fsm/definition/paradigms/index.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { loadLoopFile } from '../../loader/load.js';
import { runCliInProcess } from '../support/cli.js';
import { loop } from './helpers.js';

const ROUTE_WARNING = /can answer .* which no route handles|that no run gives/;

/** The warnings of this feature (not "no description" and the like). */
function verdictWarnings(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.filter(
    (d) => d.severity === 'warning' && (ROUTE_WARNING.test(d.message) || d.path.includes('previous')),
  );
}

function warningsOf(raw: Record<string, unknown>): Diagnostic[] {
  const result = validateLoop(raw);
  expect(result.definition, JSON.stringify(result.diagnostics)).toBeDefined();
  return verdictWarnings(result.diagnostics);
}

const CONVERGENCE = { type: 'convergence', target: 0 };

describe('routes no verdict takes', () => {
  it('an on_ typo is named, with the route it likely meant', () => {
    const result = validateLoop(
      loop({ a: { action: 'true', on_sucess: 'done', on_no: 'done' }, done: { terminal: true } }),
    );
    const dead = result.diagnostics.filter((d) => /that no run gives/.test(d.message));
    expect(dead).toHaveLength(1);
    expect(dead[0]!.path).toEqual(['states', 'a', 'on_sucess']);
    expect(dead[0]!.message).toContain('"sucess"');
    expect(dead[0]!.fix).toBe('did you mean on_success:? rename it');
  });

  it('a route: key the evaluator never answers is named; its own verdicts, _ and _error are not', () => {
    const result = validateLoop(
      loop({
        a: {
          action: 'echo 3',
          evaluate: CONVERGENCE,
          route: { target: 'done', progress: '$current', stal: 'done', _error: 'done' },
        },
        done: { terminal: true },
      }),
    );
    const dead = result.diagnostics.filter((d) => /that no run gives/.test(d.message));
    expect(dead.map((d) => d.path)).toEqual([['states', 'a', 'route', 'stal']]);
    expect(dead[0]!.fix).toBe('did you mean stall:? rename it');
  });

  it("an evaluator's own words are routes (on_target, on_stall); classify's words are the loop's", () => {
    const raw = loop({
      a: { action: 'echo 3', evaluate: CONVERGENCE, on_target: 'b', on_progress: 'a', on_stall: 'b' },
      b: { action: 'echo flaky', evaluate: { type: 'classify' }, on_flaky: 'a', on_real: 'done' },
      done: { terminal: true },
    });
    expect(warningsOf(raw)).toEqual([]);
  });
});

describe('verdicts nothing routes', () => {
  it('a convergence state with only on_yes/on_no: target, progress and stall are unrouted', () => {
    const [w, ...rest] = warningsOf(
      loop({ measure: { action: 'count', evaluate: CONVERGENCE, on_yes: 'done', on_no: 'measure' } }),
    );
    expect(rest).toEqual([]);
    expect(w).toMatchObject({ severity: 'warning', state: 'measure', path: ['states', 'measure'] });
    expect(w!.message).toBe(
      'its evaluator (convergence) can answer "target", "progress", "stall", which no route handles: the run would end with "no valid transition"',
    );
    expect(w!.fix).toBe(
      'add on_target: <state>, on_progress: <state>, on_stall: <state> (or a route: table with _: <state> as a default)',
    );
  });

  it('a parallel state is said to route on the join of its items, not on an evaluator', () => {
    const [w, ...rest] = warningsOf(loop({ fan: { parallel: { items: ['a', 'b'], loop: 'child' }, on_yes: 'done' } }));
    expect(rest).toEqual([]);
    expect(w!.message).toBe(
      'the join of its items (yes: all succeeded, no: none or, without on_partial, some) can answer "no", which no route handles: the run would end with "no valid transition"',
    );
    expect(w!.message).not.toMatch(/evaluator/);
    expect(w!.fix).toBe('add on_no: <state> (or a route: table with _: <state> as a default)');
  });

  it('a route table missing progress names it; a default _ covers everything', () => {
    const [w] = warningsOf(
      loop({ measure: { action: 'count', evaluate: CONVERGENCE, route: { target: 'done', stall: 'done' } } }),
    );
    expect(w).toMatchObject({ path: ['states', 'measure', 'route'] });
    expect(w!.message).toMatch(/answer "progress", which/);
    expect(w!.fix).toMatch(/add progress: <state> to route:/);
    expect(
      warningsOf(
        loop({ measure: { action: 'count', evaluate: CONVERGENCE, route: { target: 'done', _: 'measure' } } }),
      ),
    ).toEqual([]);
    expect(
      warningsOf(
        loop({
          measure: {
            action: 'count',
            evaluate: CONVERGENCE,
            on_target: 'done',
            on_progress: 'measure',
            on_stall: 'done',
          },
        }),
      ),
    ).toEqual([]);
  });

  it('exit_code: a missing on_no is a warning; on_failure is the same route; a state without action only answers yes', () => {
    expect(warningsOf(loop({ a: { action: 'make', on_yes: 'done' } }))[0]?.message).toMatch(
      /exit_code, the default here\) can answer "no"/,
    );
    expect(warningsOf(loop({ a: { action: 'make', on_success: 'done', on_failure: 'a' } }))).toEqual([]);
    expect(warningsOf(loop({ a: { on_yes: 'done' } }))).toEqual([]);
    expect(warningsOf(loop({ a: { action: 'make', next: 'done' } }))).toEqual([]);
  });

  it('llm_structured: the schema enum decides (default yes/no/blocked/partial), _uncertain variants with uncertain_suffix', () => {
    expect(
      warningsOf(loop({ a: { action: 'Fix it', action_type: 'prompt', on_yes: 'done', on_no: 'a' } }))[0]?.message,
    ).toMatch(/llm_structured, the default here\) can answer "blocked", "partial"/);
    const schema = { type: 'object', properties: { verdict: { type: 'string', enum: ['done', 'again'] } } };
    expect(
      warningsOf(
        loop({
          a: {
            action: 'Fix it',
            action_type: 'prompt',
            evaluate: { type: 'llm_structured', schema },
            on_done: 'done',
            on_again: 'a',
          },
        }),
      ),
    ).toEqual([]);
    const uncertain = warningsOf(
      loop({
        a: {
          action: 'x',
          evaluate: { type: 'llm_structured', uncertain_suffix: true },
          route: { yes: 'done', no: 'a', blocked: 'done', partial: 'a' },
        },
      }),
    );
    expect(uncertain[0]?.message).toMatch(/"yes_uncertain", "no_uncertain", "blocked_uncertain", "partial_uncertain"/);
    // A schema without a verdict enum: the answers cannot be known, so nothing is claimed.
    expect(
      warningsOf(
        loop({ a: { action: 'x', evaluate: { type: 'llm_structured', schema: { type: 'object' } }, on_yes: 'done' } }),
      ),
    ).toEqual([]);
  });

  it('a sub-loop state answers yes or no', () => {
    const child = { loop: 'child', on_success: 'done' };
    expect(warningsOf(loop({ a: child }))[0]?.message).toMatch(/its sub-loop can answer "no"/);
  });
});

describe('convergence previous:', () => {
  it('${prev.output} read after another state is a warning with the fix', () => {
    const w = warningsOf(
      loop({
        measure: {
          action: 'count',
          evaluate: { ...CONVERGENCE, previous: '${prev.output}' },
          route: { target: 'done', progress: 'fix', stall: 'done' },
        },
        fix: { action: 'repair', next: 'measure' },
      }),
    );
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ path: ['states', 'measure', 'evaluate', 'previous'], state: 'measure' });
    expect(w[0]!.message).toMatch(/\$\{prev\.output\} is the output of the state run before this one \("fix"\)/);
    expect(w[0]!.fix).toMatch(/remove previous:/);
  });

  it('a state that only re-enters itself reads its own last output: no warning', () => {
    expect(
      warningsOf(
        loop({
          measure: {
            action: 'count',
            evaluate: { ...CONVERGENCE, previous: '${prev.output}' },
            route: { target: 'done', _: '$current' },
          },
        }),
      ),
    ).toEqual([]);
  });

  it('its own capture holds the new value already: a warning', () => {
    const w = warningsOf(
      loop({
        measure: {
          action: 'count',
          capture: 'n',
          evaluate: { ...CONVERGENCE, previous: '${captured.n.output}' },
          route: { target: 'done', _: 'measure' },
        },
      }),
    );
    expect(w[0]?.message).toMatch(/own capture/);
  });
});

describe('validate prints the warnings and still succeeds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'll-verdicts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, '.loops'));
  writeFileSync(
    join(dir, '.loops', 'conv.yaml'),
    'name: conv\ndescription: d\ninitial: measure\nstates:\n  measure:\n    action: echo 3\n    evaluate: {type: convergence, target: 0}\n    on_yes: done\n    on_no: measure\n  done: {terminal: true}\n',
  );

  it('text: file:line: warning, exit 0', async () => {
    const r = await runCliInProcess(['validate', 'conv'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `${join('.loops', 'conv.yaml')}:5:3: warning: state "measure": its evaluator (convergence) can answer "target", "progress", "stall"`,
    );
    expect(r.stdout).toMatch(/is valid \(2 states, 1 warning\)/);
  });

  it('--json: valid, with the warning', async () => {
    const r = await runCliInProcess(['validate', 'conv', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { valid: boolean; diagnostics: Diagnostic[] };
    expect(out.valid).toBe(true);
    expect(out.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        state: 'measure',
        line: 5,
        column: 3,
        message: expect.stringMatching(ROUTE_WARNING),
      }),
    ]);
  });
});

describe('what ll-loop writes validates without these warnings', () => {
  const answers: Answers[] = [
    {
      kind: 'fix',
      name: 'f',
      maxAttempts: 10,
      checks: [
        { id: 'types', topic: 'types', command: 'mypy src/', fix: prompt('Fix the type errors') },
        { id: 'lint', topic: 'lint', command: 'ruff check', fix: shell('ruff check --fix') },
      ],
    },
    {
      kind: 'constraints',
      name: 'c',
      maxAttempts: 10,
      intervalS: 60,
      checks: [{ id: 'tests', topic: 'tests', command: 'pytest', fix: prompt('/ll:manage-issue bug fix') }],
    },
    {
      kind: 'constraints',
      name: 'c0',
      maxAttempts: 10,
      intervalS: 0,
      checks: [{ id: 'tests', topic: 'tests', command: 'pytest', fix: shell('make fix') }],
    },
    {
      kind: 'metric',
      name: 'm',
      maxAttempts: 10,
      measure: 'grep -c TODO src',
      direction: 'minimize',
      target: 0,
      tolerance: 0,
      improve: prompt('Resolve a TODO'),
    },
    {
      kind: 'metric',
      name: 'm2',
      maxAttempts: 10,
      measure: './coverage.sh',
      direction: 'maximize',
      target: 90,
      tolerance: 1,
      improve: shell('./add-test.sh'),
    },
    {
      kind: 'sequence',
      name: 's',
      maxAttempts: 10,
      steps: [prompt('Write the code'), shell('make fmt')],
      until: 'make test',
    },
    // Checks written as /slash commands are judged by the LLM: blocked and partial take the failure route.
    {
      kind: 'fix',
      name: 'fs',
      maxAttempts: 10,
      checks: [{ id: 'review', topic: 'types', command: '/ll:check-code types', fix: prompt('Fix them') }],
    },
    {
      kind: 'constraints',
      name: 'cs',
      maxAttempts: 10,
      intervalS: 0,
      checks: [{ id: 'review', topic: 'types', command: '/ll:check-code types', fix: prompt('Fix them') }],
    },
    { kind: 'sequence', name: 'ss', maxAttempts: 10, steps: [prompt('Write the code')], until: '/ll:check-code done' },
  ];
  for (const a of answers) {
    it(`ll-loop create --kind ${a.kind} (${a.name})`, () => {
      const result = validateLoop(generateLoop(a).fsm);
      expect(result.definition).toBeDefined();
      expect(result.diagnostics.filter((d) => d.severity === 'warning')).toEqual([]);
    });
  }

  it("a /slash check routes the LLM's blocked and partial like a failure, right after on_failure", () => {
    const fsm = generateLoop(answers.find((a) => a.name === 'fs')!).fsm as {
      states: Record<string, Record<string, unknown>>;
    };
    expect(Object.entries(fsm.states.check_review!)).toEqual([
      ['action', '/ll:check-code types'],
      ['on_success', 'all_valid'],
      ['on_failure', 'fix_review'],
      ['on_blocked', 'fix_review'],
      ['on_partial', 'fix_review'],
    ]);
  });

  const paradigms: Record<string, Record<string, unknown>> = {
    goal: { paradigm: 'goal', goal: 'No type errors', tools: ['/ll:check_code types', '/ll:manage_issue bug fix'] },
    convergence: { paradigm: 'convergence', name: 'r', check: 'count.sh', toward: 0, using: '/ll:check_code fix' },
    invariants: {
      paradigm: 'invariants',
      name: 'i',
      constraints: [{ name: 'a', check: 'pytest', fix: '/fix' }],
      maintain: true,
    },
    imperative: { paradigm: 'imperative', name: 'p', steps: ['a', 'b'], until: { check: 'make test', passes: false } },
    iterative: {
      paradigm: 'iterative',
      name: 'it',
      input: 'do it',
      executor: { prompt: 'work' },
      test_command: 'make test',
    },
  };
  for (const [name, doc] of Object.entries(paradigms)) {
    it(`paradigm: ${name}`, () => {
      const compiled = compileParadigm(doc);
      expect(compiled.raw, JSON.stringify(compiled.diagnostics)).toBeDefined();
      const found = warningsOf({ description: 'd', ...compiled.raw });
      // Seed 000's goal FSM judges a /slash check with the LLM and routes only success/failure:
      // an LLM answering blocked or partial ends the run. Kept seed-exact, so the warning stays.
      if (name === 'goal')
        expect(found.map((d) => [d.state, d.message])).toEqual([
          ['evaluate', expect.stringMatching(/can answer "blocked", "partial"/)],
        ]);
      else expect(found).toEqual([]);
    });
  }

  const bundled = join(import.meta.dirname, '..', '..', 'loops');
  for (const file of readdirSync(bundled).filter((f) => f.endsWith('.yaml'))) {
    it(`bundled loop ${file}`, () => {
      const loaded = loadLoopFile(join(bundled, file));
      expect(loaded.definition).toBeDefined();
      expect(loaded.diagnostics).toEqual([]);
    });
  }

  it('the seed examples (verbatim spec text) warn only where seed 001 itself is at fault', () => {
    const dir = join(import.meta.dirname, '..', 'fixtures', 'seed-examples');
    const found = readdirSync(dir).flatMap((f) =>
      verdictWarnings(loadLoopFile(join(dir, f)).diagnostics).map((d) => [`${f} ${d.state}`, d.message]),
    );
    expect(found).toEqual([
      [
        'fix-types.yaml fix',
        expect.stringMatching(/^its evaluator \(llm_structured, the default here\) can answer "blocked", "partial"/),
      ],
      [
        'reduce-errors.yaml measure',
        expect.stringMatching(/^\$\{prev\.output\} is the output of the state run before this one \("fix"\)/),
      ],
    ]);
  });
});

describe('the verdict registry matches the evaluators', () => {
  const outputs = [
    '',
    '0',
    '3',
    '7',
    '-1',
    'ok',
    'error: x',
    '{"a": 1, "b": [1, 2]}',
    '{"a": 0}',
    'not json',
    '5\n2\n',
  ];
  const exits = [0, 1, 2, 124];
  const configs: Array<Parameters<typeof evaluatePure>[0]> = [
    { type: 'exit_code' },
    { type: 'output_numeric', operator: 'lt', target: 5 },
    { type: 'output_json', path: '.a', operator: 'eq', target: 1 },
    { type: 'output_json', path: '.b' },
    { type: 'output_contains', pattern: 'ok' },
    { type: 'output_contains', pattern: 'ok', negate: true },
    { type: 'convergence', target: 2 },
    { type: 'convergence', target: 2, previous: '3' },
    { type: 'convergence', target: 2, previous: '7', direction: 'maximize' },
    { type: 'harbor_scorer' },
  ];
  it('every verdict a deterministic evaluator gives (but error) is declared, and pass/fail are among them', () => {
    const seen = new Map<string, Set<string>>();
    for (const config of configs) {
      for (const output of outputs) {
        for (const exitCode of exits) {
          for (const lastValue of [undefined, 1, 9]) {
            const { verdict } = evaluatePure(config, {
              output,
              exitCode,
              abnormal: false,
              ...(lastValue === undefined ? {} : { lastValue }),
            });
            if (verdict !== 'error') seen.set(config.type, (seen.get(config.type) ?? new Set()).add(verdict));
          }
        }
      }
    }
    for (const [type, verdicts] of seen) {
      const declared = EVALUATOR_VERDICTS[type as keyof typeof EVALUATOR_VERDICTS];
      // Each declared verdict occurs too: the declarations are neither short nor padded.
      expect([...verdicts].sort(), type).toEqual([...declared.verdicts].sort());
      expect(declared.verdicts).toContain(declared.pass);
      expect(declared.verdicts).toContain(declared.fail);
    }
    expect([...seen.keys()].sort()).toEqual([
      'convergence',
      'exit_code',
      'harbor_scorer',
      'output_contains',
      'output_json',
      'output_numeric',
    ]);
  });
});

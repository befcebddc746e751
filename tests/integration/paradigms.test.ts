/**
 * Paradigm files loaded through the real pipeline (loader/load.ts: reuse → compile → validate)
 * and run on the real Temporal dev server with ordinary shell tools (scripted stand-ins on PATH);
 * the iterative loop's executor and controller go through the fake host CLI. Then
 * `ll-loop compile` through the CLI's `main`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadLoop } from '../../loader/load.js';
import { runCliInProcess } from '../support/cli.js';
import { closeTemporal, project, runLoop, script, toolEnv, verdicts } from './harness.js';

afterAll(closeTemporal);

/** A project with the given tools and `.loops/<name>.yaml`. */
function withLoop(tools: string[], name: string, yaml: string) {
  const p = project(tools);
  mkdirSync(join(p.cwd, '.loops'), { recursive: true });
  writeFileSync(join(p.cwd, '.loops', `${name}.yaml`), yaml);
  return p;
}

function load(cwd: string, name: string) {
  const loaded = loadLoop(name, cwd);
  if (!loaded.definition) throw new Error(JSON.stringify(loaded.diagnostics, null, 2));
  return loaded.definition;
}

describe('each paradigm compiles and runs to its expected end', () => {
  it('goal: evaluate fails, fix, evaluate passes → done', async () => {
    const p = withLoop(
      ['mypy', 'fixer'],
      'types',
      'paradigm: goal\ndescription: types\ngoal: "No type errors in src/"\ntools: ["mypy src/", "fixer --types"]\nmax_iterations: 5\n',
    );
    script(p.toolsDir, 'mypy', [
      [1, 'src/a.py:1: error: x'],
      [0, 'Success'],
    ]);
    const def = load(p.cwd, 'types');
    expect(def.name).toBe('goal-no-type-errors');
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['evaluate', 'fix', 'evaluate', 'done']);
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal', iterations: 2 });
  });

  it('convergence: 5 → 3 → 0 reaches the target', async () => {
    const p = withLoop(
      ['count-errors', 'fixer'],
      'errors',
      'paradigm: convergence\nname: reduce-errors\ndescription: fewer errors\ncheck: count-errors\ntoward: 0\nusing: fixer\n',
    );
    script(p.toolsDir, 'count-errors', [
      [0, '5'],
      [0, '3'],
      [0, '0'],
    ]);
    const run = await runLoop(load(p.cwd, 'errors'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['measure', 'apply', 'measure', 'apply', 'measure', 'done']);
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal' });
    expect(run.result.captured.current_value!.output).toBe('0');
    const verdictsSeen = run.events.filter((e) => e.event === 'evaluate').map((e) => e.verdict);
    expect(verdictsSeen).toEqual(['progress', 'progress', 'target']);
  });

  it('convergence: a stall ends at done too', async () => {
    const p = withLoop(
      ['count-errors', 'fixer'],
      'errors',
      'paradigm: convergence\nname: reduce-errors\ndescription: d\ncheck: count-errors\ntoward: 0\nusing: fixer\n',
    );
    script(p.toolsDir, 'count-errors', [
      [0, '4'],
      [0, '4'],
    ]);
    const run = await runLoop(load(p.cwd, 'errors'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['measure', 'apply', 'measure', 'done']);
    expect(run.events.filter((e) => e.event === 'evaluate').map((e) => e.verdict)).toEqual(['progress', 'stall']);
  });

  it('invariants in maintain mode: fix what breaks, reach all_valid, restart at the first check (max_steps ends it)', async () => {
    const p = withLoop(
      ['pytest', 'ruff', 'mypy', 'fixer'],
      'guardian',
      `paradigm: invariants
name: code-quality-guardian
description: keep it green
constraints:
  - { name: tests-pass, check: pytest, fix: fixer tests }
  - { name: lint-clean, check: "ruff check src/", fix: fixer lint }
  - { name: types-valid, check: "mypy src/", fix: fixer types }
maintain: true
max_steps: 8
`,
    );
    script(p.toolsDir, 'pytest', [
      [1, '1 failed'],
      [0, 'ok'],
    ]);
    const run = await runLoop(load(p.cwd, 'guardian'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual([
      'check_tests',
      'fix_tests',
      'check_tests',
      'check_lint',
      'check_types',
      'all_valid',
      'check_tests',
      'check_lint',
    ]);
    expect(run.result).toMatchObject({ terminated_by: 'max_steps', cycles: 1 });
  });

  it('imperative: steps in order until the check passes', async () => {
    const p = withLoop(
      ['step-a', 'step-b', 'mypy'],
      'seq',
      'paradigm: imperative\nname: fix-all-types\ndescription: d\nsteps: ["step-a", "step-b --now"]\nuntil: { check: "mypy src/", passes: true }\nmax_iterations: 5\n',
    );
    script(p.toolsDir, 'mypy', [[1], [0]]);
    const run = await runLoop(load(p.cwd, 'seq'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['step_0', 'step_1', 'check_done', 'step_0', 'step_1', 'check_done', 'done']);
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal', iterations: 2 });
  });
});

describe('paradigm: iterative with the fake host CLI', () => {
  const continueWith = (next: string) => ({
    verdict: 'continue',
    success: false,
    analysis: 'tests still fail',
    next_input: next,
    new_files: ['src/parser.ts'],
  });

  it('succeeds on its third attempt: next_input feeds each executor call, the result is the last executor output', async () => {
    const p = withLoop(
      ['pytest'],
      'iter',
      `paradigm: iterative
name: fix-parser
description: iterate on the parser
input: attempt 1
executor:
  prompt: "Work on this task: \${captured.input.output}"
test_command: pytest tests/parser
controller: Done when the parser tests pass.
max_iterations: 5
`,
    );
    script(p.toolsDir, 'pytest', [
      [1, '2 failed'],
      [1, '1 failed'],
      [0, '9 passed'],
    ]);
    const file = verdicts(p.cwd, [
      continueWith('attempt 2'),
      continueWith('attempt 3'),
      { verdict: 'success', success: true, analysis: 'all pass', next_input: '', new_files: [] },
    ]);
    const log = join(p.cwd, 'claude.log');
    const run = await runLoop(load(p.cwd, 'iter'), {
      cwd: p.cwd,
      env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file, FAKE_CLAUDE_LOG: log }),
    });
    const pass = ['execute', 'validate', 'control'];
    expect(run.states).toEqual(['start', ...pass, 'next_input', ...pass, 'next_input', ...pass, 'done']);
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal', iterations: 3, failure: false });
    const prompts = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { prompt: string }).prompt);
    expect(prompts).toEqual([
      'Work on this task: attempt 1',
      'Work on this task: attempt 2',
      'Work on this task: attempt 3',
    ]);
    expect(run.result.captured.result!.output).toBe('done: Work on this task: attempt 3');
    expect(run.result.captured.validation).toMatchObject({ exit_code: 0, output: '9 passed' });
    const judged = run.events.filter((e) => e.event === 'evaluate').map((e) => e.verdict);
    expect(judged).toEqual(['continue', 'continue', 'success']);
  });

  it('hits max_iterations: the last executor result is the loop result', async () => {
    const p = withLoop(
      ['pytest'],
      'iter',
      `paradigm: iterative
name: capped
description: capped
input: first try
executor: { shell: 'echo "tried: \${captured.input.output}"' }
test_command: pytest
max_iterations: 2
`,
    );
    script(p.toolsDir, 'pytest', [[1, 'failed']]);
    const file = verdicts(p.cwd, [continueWith('second try'), continueWith('third try')]);
    const run = await runLoop(load(p.cwd, 'iter'), { cwd: p.cwd, env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file }) });
    expect(run.result).toMatchObject({ terminated_by: 'max_iterations', iterations: 2, final_state: 'execute' });
    expect(run.result.captured.result!.output).toBe('tried: second try');
  });
});

describe('ll-loop compile', () => {
  /** `ll-loop compile <args…>` in `cwd`, through the CLI's `main`. */
  const cli = (cwd: string, ...args: string[]) => runCliInProcess(['compile', ...args], { cwd });

  const CONVERGENCE = `paradigm: convergence
name: "reduce-lint-errors"
description: fewer lint errors
check: "ruff check src/ --output-format=json | jq '.count'"
toward: 0
using: "/ll:check_code fix"
max_iterations: 8
`;

  it('prints the compiled FSM as YAML, in canonical order, with a header saying where it came from', async () => {
    const p = withLoop([], 'lint', CONVERGENCE);
    const r = await cli(p.cwd, 'lint');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.startsWith('# Compiled by ll-loop compile from .loops/lint.yaml (paradigm: convergence).\n')).toBe(
      true,
    );
    const doc = parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['name', 'description', 'initial', 'context', 'max_iterations', 'states']);
    expect(doc).toStrictEqual({
      name: 'reduce-lint-errors',
      description: 'fewer lint errors',
      initial: 'measure',
      context: { metric_cmd: "ruff check src/ --output-format=json | jq '.count'", target: 0, tolerance: 0 },
      max_iterations: 8,
      states: {
        measure: {
          action: '${context.metric_cmd}',
          capture: 'current_value',
          evaluate: { type: 'convergence', target: '${context.target}', tolerance: '${context.tolerance}' },
          route: { target: 'done', progress: 'apply', stall: 'done' },
        },
        apply: { action: '/ll:check_code fix', next: 'measure' },
        done: { terminal: true },
      },
    });
  });

  it('-o writes a file that loads as the same loop', async () => {
    const p = withLoop([], 'lint', CONVERGENCE);
    const r = await cli(p.cwd, 'lint', '-o', '.loops/lint.fsm.yaml');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('✓ compiled .loops/lint.yaml → .loops/lint.fsm.yaml (3 states)\n');
    expect(load(p.cwd, 'lint.fsm')).toEqual(load(p.cwd, 'lint'));
  });

  it('a bad paradigm file: exit 1 with the same file:line:col diagnostics as validate, nothing printed on stdout', async () => {
    const p = withLoop(
      [],
      'bad',
      'paradigm: convergence\nname: bad\ncheck: count\ntoward: 0\nusing: fix\nmax_iterations: "ten"\ntolerence: 1\n',
    );
    const r = await cli(p.cwd, 'bad');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const file = join(p.cwd, '.loops', 'bad.yaml');
    expect(r.stderr).toContain(
      `${file}:6:1: error: max_iterations must be a whole number of 1 or more (got "ten")\n    fix: write max_iterations: 20`,
    );
    expect(r.stderr).toContain(
      `${file}:7:1: error: unknown field "tolerence" in a paradigm: convergence file (did you mean "tolerance"?)`,
    );
    const validated = await runCliInProcess(['validate', 'bad'], { cwd: p.cwd });
    expect(validated.code).toBe(1);
    const validateErr = validated.stderr;
    const diagnosticLines = (text: string) => text.split('\n').filter((l) => !l.startsWith('✗'));
    // validate names the file relative to where it was started (here the project root); run, absolutely.
    expect(diagnosticLines(r.stderr)).toEqual(
      diagnosticLines(validateErr.replaceAll(`${join('.loops', 'bad.yaml')}:`, `${file}:`)),
    );
  });

  it('an unknown loop is a usage error listing the loops', async () => {
    const p = withLoop([], 'lint', CONVERGENCE);
    const r = await cli(p.cwd, 'lnt');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no loop named "lnt" (did you mean "lint"?)');
  });
});

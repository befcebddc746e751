/**
 * The ratchet built-ins stricter-types, migrate-usage and complexity-ratchet run on the test run's
 * real Temporal server with a scripted agent: the honest agent lowers the count a step at a time,
 * each step staged, and reaches done; a step that does not lower the count (a suppression
 * comment) or breaks the tests is reverted, so a cheating agent ends at step_limit with nothing
 * kept; one that edits a test ends in agent_failed; a checker that cannot run ends the run
 * before any agent call.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';
import { PACKAGE_ROOT } from '../../host/paths.js';
import { closeTemporal } from './harness.js';
import { builtin, git, prompts, repo, runIn } from './catalog-sandbox.js';

afterAll(closeTemporal);

/** The first src/ file the prompt lists (the agent's "ONE file"). */
const FIRST_FILE = 'f=$(printf "%s\\n" "$1" | grep -o -m1 "src/[a-z]*\\.[a-z]*")';
const staged = (p: ReturnType<typeof repo>) => git(p, 'diff', '--cached', '--name-only').trim();

describe('stricter-types', () => {
  // The "strict checker": one error per line with IMPLICIT, unless the line has a @ts-ignore.
  const TYPES =
    'grep -n IMPLICIT src/*.ts | grep -v @ts-ignore | sed "s/:\\([0-9]*\\):.*/(\\1,1): error TS7006: implicit any/" | grep . && exit 2; exit 0';
  const FILES = { 'src/a.ts': 'let x: IMPLICIT;\nlet y: IMPLICIT;\n', 'src/b.ts': 'let z: IMPLICIT;\n' };
  const params = { type_cmd: './types.sh', test_cmd: './tests.sh' };

  it('fixes one file per step, stages each step that lowers the count, and ends in done', async () => {
    const p = repo(
      { 'types.sh': TYPES, 'tests.sh': 'exit 0', 'agent.sh': `${FIRST_FILE}; sed -i s/IMPLICIT/number/ "$f"` },
      FILES,
    );
    const { result, states } = await runIn(p, builtin(p, 'stricter-types', params));
    const step = ['measure', 'budget', 'step', 'verify', 'recount', 'keep'];
    expect(states).toEqual(['clean', 'baseline', ...step, ...step, 'measure', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const asked = prompts(p);
    expect(asked[0]).toContain('reports 3 problems');
    expect(asked[0]).toContain('src/a.ts(1,1): error TS7006: implicit any');
    expect(asked[1]).toContain('reports 1 problems');
    expect(staged(p).split('\n')).toEqual(['src/a.ts', 'src/b.ts']);
  });

  it('an agent that silences errors with @ts-ignore lowers nothing: each step is reverted, step_limit', async () => {
    const p = repo(
      { 'types.sh': TYPES, 'tests.sh': 'exit 0', 'agent.sh': `${FIRST_FILE}; sed -i 's|^|// @ts-ignore |' "$f"` },
      FILES,
    );
    const { result, states } = await runIn(p, builtin(p, 'stricter-types', { ...params, max_steps: '2' }));
    expect(states.filter((s) => s === 'revert')).toHaveLength(2);
    expect(states).not.toContain('keep');
    expect(result).toMatchObject({ final_state: 'step_limit', failure: true });
    // The next prompt names the reverted step (its diffstat).
    expect(prompts(p)[1]).toMatch(/src\/a\.ts +\| /);
    expect(staged(p)).toBe('');
    expect(readFileSync(join(p.cwd, 'src', 'a.ts'), 'utf8')).toBe(FILES['src/a.ts']);
  });

  it('an agent that excludes a file in the checker configuration is reverted: step_limit', async () => {
    // This checker skips the files tsconfig.json names, as an "exclude" would.
    const checker = [
      'for f in src/*.ts; do grep -q "$f" tsconfig.json && continue',
      '  grep -n IMPLICIT "$f" | sed "s|^\\([0-9]*\\):.*|$f(\\1,1): error TS7006: implicit any|"',
      'done | grep . && exit 2; exit 0',
    ].join('\n');
    const p = repo(
      { 'types.sh': checker, 'tests.sh': 'exit 0', 'agent.sh': `${FIRST_FILE}; echo "$f" >> tsconfig.json` },
      { ...FILES, 'tsconfig.json': '{ "exclude": [] }\n' },
    );
    const { result, states } = await runIn(p, builtin(p, 'stricter-types', { ...params, max_steps: '2' }));
    expect(prompts(p)[0]).toContain('src/a.ts(1,1): error TS7006: implicit any');
    expect(states.filter((s) => s === 'revert')).toHaveLength(2);
    expect(result).toMatchObject({ final_state: 'step_limit', failure: true });
    expect(readFileSync(join(p.cwd, 'tsconfig.json'), 'utf8')).toBe('{ "exclude": [] }\n');
  });

  it('ends at once in measure_failed when the checker is not installed, without the agent', async () => {
    const p = repo({ 'tests.sh': 'exit 0', 'agent.sh': 'exit 0' }, FILES);
    const { result, states } = await runIn(
      p,
      builtin(p, 'stricter-types', { ...params, type_cmd: 'no-such-mypy --strict' }),
    );
    expect(states).toEqual(['clean', 'baseline', 'measure', 'measure_failed']);
    expect(result).toMatchObject({ final_state: 'measure_failed', failure: true });
    expect(prompts(p)).toEqual([]);
  });
});

describe('migrate-usage', () => {
  // The tests check each function's result; tests/t_api.sh itself calls the old API (not counted).
  const FILES = {
    'src/a.js': 'oldApi(1)\n',
    'src/b.js': 'oldApi(2)\noldApi(3)\n',
    'tests/t_api.sh': 'grep -q "Api(1)" src/a.js && grep -c "Api(" src/b.js | grep -q 2 # oldApi(\n',
  };
  const MIGRATION = 'Replace oldApi( with newApi(';
  const params = { migration: MIGRATION, pattern: 'oldApi\\(', test_cmd: 'sh tests/t_api.sh' };

  it('migrates one file per step outside the tests, and ends in done when the pattern finds none', async () => {
    const p = repo({ 'agent.sh': `${FIRST_FILE}; sed -i "s/oldApi(/newApi(/g" "$f"` }, FILES);
    const { result, states } = await runIn(p, builtin(p, 'migrate-usage', params));
    expect(states.filter((s) => s === 'keep')).toHaveLength(2);
    expect(states.slice(-2)).toEqual(['measure', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const asked = prompts(p);
    expect(asked[0]).toContain(`Migration: ${MIGRATION}`);
    expect(asked[0]).toContain('left on 3 lines outside the tests');
    expect(asked[0]).toContain('src/a.js:1:oldApi(1)');
    expect(asked[0]).not.toContain('tests/t_api.sh:');
    expect(staged(p).split('\n')).toEqual(['src/a.js', 'src/b.js']);
  });

  it('an agent that deletes the usages breaks the tests: reverted, step_limit, nothing kept', async () => {
    const p = repo({ 'agent.sh': `${FIRST_FILE}; sed -i "/oldApi(/d" "$f"` }, FILES);
    const { result, states } = await runIn(p, builtin(p, 'migrate-usage', { ...params, max_steps: '2' }));
    expect(states.filter((s) => s === 'revert')).toHaveLength(2);
    expect(result).toMatchObject({ final_state: 'step_limit', failure: true });
    expect(staged(p)).toBe('');
  });

  it('an agent that edits the tests ends in agent_failed', async () => {
    const p = repo({ 'agent.sh': `sed -i "/oldApi(/d" src/*.js; echo true > tests/t_api.sh` }, FILES);
    const { result, states, events } = await runIn(p, builtin(p, 'migrate-usage', params));
    expect(states.slice(-2)).toEqual(['step', 'agent_failed']);
    expect(result).toMatchObject({ final_state: 'agent_failed', failure: true });
    expect(JSON.stringify(events.find((e) => e.event === 'tamper_guard'))).toContain('tests/t_api.sh');
  });

  it('ends at once, without the agent, on a pattern git grep refuses', async () => {
    const p = repo({ 'agent.sh': 'exit 0' }, FILES);
    const { result, states } = await runIn(p, builtin(p, 'migrate-usage', { ...params, pattern: 'oldApi(' }));
    expect(states).toEqual(['clean', 'baseline', 'measure', 'measure_failed']);
    expect(result).toMatchObject({ final_state: 'measure_failed', failure: true });
    expect(prompts(p)).toEqual([]);
  });
});

describe('ll-loop run migrate-usage', () => {
  const saved = { address: process.env.TEMPORAL_ADDRESS, host: process.env.LL_HOST_CLI };
  afterAll(() => {
    for (const [key, value] of [
      ['TEMPORAL_ADDRESS', saved.address],
      ['LL_HOST_CLI', saved.host],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('takes the migration as its input and the pattern as data (spaces, quotes and parentheses)', async () => {
    const p = repo(
      { 'agent.sh': `sed -i "s/old 'Api'(/newApi(/g" src/a.js`, 'tests.sh': 'exit 0' },
      { 'src/a.js': "old 'Api'(1)\nold 'Api'(2)\n" },
    );
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    process.env.LL_HOST_CLI = join(p.bin, 'claude');
    const args = [
      'run',
      'migrate-usage',
      "Use newApi( instead of old 'Api'(",
      '--context',
      "pattern=old 'Api'\\(",
      '--context',
      'test_cmd=./tests.sh',
      '--json',
    ];
    const { code, stdout } = await runCliInProcess(args, { cwd: p.cwd });
    expect(code, stdout).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)[0]).toContain("Migration: Use newApi( instead of old 'Api'(");
    expect(prompts(p)[0]).toContain("src/a.js:2:old 'Api'(2)");
    expect(readFileSync(join(p.cwd, 'src', 'a.js'), 'utf8')).toBe('newApi(1)\nnewApi(2)\n');
  });
});

describe("complexity-ratchet with its default metric (the project's ESLint)", () => {
  // 11 branches: complexity 12, above the default limit of 10.
  const COMPLEX = `export function code(x) {\n${Array.from({ length: 11 }, (_, i) => `  if (x === ${i}) return ${i * 2};`).join('\n')}\n  return -1;\n}\n`;
  const SIMPLE = 'export function code(x) {\n  return x >= 0 && x <= 10 ? x * 2 : -1;\n}\n';
  const FILES = {
    'src/code.js': COMPLEX,
    'eslint.config.mjs': 'export default [];\n',
    'package.json': '{ "type": "module" }\n',
  };
  const project = (agent: string) => {
    const p = repo({ 'tests.sh': 'exit 0', 'agent.sh': agent }, FILES, '/*.sh\nbin/\ntools/\nprompts/\nnode_modules\n');
    symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(p.cwd, 'node_modules'));
    return p;
  };

  it('lists the complex function, keeps the refactoring, ends in done', async () => {
    const p = project(`printf '%s' '${SIMPLE}' > src/code.js`);
    const { result, states } = await runIn(p, builtin(p, 'complexity-ratchet', { test_cmd: './tests.sh' }));
    expect(states.filter((s) => s === 'keep')).toHaveLength(1);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)[0]).toMatch(/src\/code\.js:1: Function 'code' has a complexity of 12/);
  }, 60_000);

  it('an agent that makes ESLint ignore the file is reverted: step_limit', async () => {
    const p = project(`echo 'export default [{ ignores: ["src/**"] }];' > eslint.config.mjs`);
    const { result, states } = await runIn(
      p,
      builtin(p, 'complexity-ratchet', { test_cmd: './tests.sh', max_steps: '1' }),
    );
    expect(states).toContain('revert');
    expect(result).toMatchObject({ final_state: 'step_limit', failure: true });
    expect(readFileSync(join(p.cwd, 'eslint.config.mjs'), 'utf8')).toBe('export default [];\n');
  }, 60_000);
});

describe('complexity-ratchet', () => {
  // The metric: COMPLEX markers in src/, listed on stderr; the tests need every function kept.
  const METRIC = 'grep -n COMPLEX src/* >&2; grep -o COMPLEX src/* | wc -l';
  const FILES = { 'src/a.py': 'def f(): COMPLEX\ndef g(): COMPLEX\n', 'src/b.py': 'def h(): COMPLEX\n' };
  const TESTS = 'for fn in f g h; do grep -q "def $fn" src/*.py || { echo "missing $fn"; exit 1; }; done';
  const params = { metric_cmd: './metric.sh', test_cmd: './tests.sh' };

  it('refactors one item per step until the metric meets the target, each step staged', async () => {
    const p = repo(
      { 'metric.sh': METRIC, 'tests.sh': TESTS, 'agent.sh': `${FIRST_FILE}; sed -i "0,/COMPLEX/s//simple/" "$f"` },
      FILES,
    );
    const { result, states } = await runIn(p, builtin(p, 'complexity-ratchet', { ...params, target: '1' }));
    expect(states.filter((s) => s === 'keep')).toHaveLength(2);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)[0]).toContain('is 3; the target is 1 or lower');
    expect(prompts(p)[0]).toContain('src/a.py:1:def f(): COMPLEX');
    expect(readFileSync(join(p.cwd, 'src', 'a.py'), 'utf8')).toBe('def f(): simple\ndef g(): simple\n');
  });

  it('an agent that deletes functions to lower the metric is reverted every step: step_limit', async () => {
    const p = repo(
      { 'metric.sh': METRIC, 'tests.sh': TESTS, 'agent.sh': `${FIRST_FILE}; sed -i "/COMPLEX/d" "$f"` },
      FILES,
    );
    const { result, states } = await runIn(p, builtin(p, 'complexity-ratchet', { ...params, max_steps: '2' }));
    expect(states.filter((s) => s === 'revert')).toHaveLength(2);
    expect(result).toMatchObject({ final_state: 'step_limit', failure: true });
    expect(prompts(p)[1]).toMatch(/src\/a\.py +\| /);
    expect(staged(p)).toBe('');
  });
});

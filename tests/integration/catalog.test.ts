/**
 * Every built-in loop run on the test run's real Temporal server, resolved by name from a project
 * without `.loops/`, in a temporary project whose "ordinary tools" are small shell scripts and
 * whose coding agent is a fake host CLI (`claude` on PATH) that records each prompt and makes the
 * project's scripted fix. Each loop reaches its success terminal after the fake fixes; the limit
 * and failure paths end in their `failure: true` terminals; two built-ins run as sub-loops with
 * `with:`; and one runs through `ll-loop run` itself.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';
import { loadLoop, type LoadOverrides } from '../../loader/load.js';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { closeTemporal, project, runLoop, toolEnv } from './harness.js';

afterAll(closeTemporal);

/**
 * The fake coding agent: saves its prompt as prompts/<n>.txt, then runs the project's ./agent.sh
 * (the scripted "fix") with the prompt as $1, exiting with its status. Like `claude -p`, it reads
 * the prompt from stdin when no argument follows -p (ll-loop never puts it in argv).
 */
const HOST = `#!/bin/sh
prompt=
while [ $# -gt 0 ]; do
  if [ "$1" = "-p" ]; then case "\${2-}" in ''|-*) ;; *) prompt=$2; shift ;; esac; fi
  shift
done
[ -n "$prompt" ] || prompt=$(cat)
mkdir -p prompts
printf '%s' "$prompt" > "prompts/$(ls prompts | wc -l | tr -d ' ').txt"
if [ -x ./agent.sh ]; then exec ./agent.sh "$prompt"; fi
`;

type Project = ReturnType<typeof project>;

/** A project without `.loops/`: the fake agent as `claude`, and the given executable scripts. */
function sandbox(scripts: Record<string, string>, files: Record<string, string> = {}): Project {
  const p = project();
  writeFileSync(join(p.bin, 'claude'), HOST);
  chmodSync(join(p.bin, 'claude'), 0o755);
  for (const [name, body] of Object.entries(scripts)) {
    writeFileSync(join(p.cwd, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(p.cwd, name), 0o755);
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(join(p.cwd, name), text);
  return p;
}

/** The prompts the fake agent got, in order. */
function prompts(p: Project): string[] {
  const dir = join(p.cwd, 'prompts');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10))
    .map((f) => readFileSync(join(dir, f), 'utf8'));
}

/** The built-in `name` as `ll-loop run name --context …` loads it in `p` (which has no .loops/). */
function builtin(p: Project, name: string, context: Record<string, string>): LoopDefinition {
  const overrides: LoadOverrides = { context, requireParameters: true };
  const loaded = loadLoop(name, p.cwd, overrides);
  if (!loaded.definition) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
  expect(loaded.file.endsWith(join('loops', `${name}.yaml`))).toBe(true);
  expect(existsSync(join(p.cwd, '.loops', `${name}.yaml`))).toBe(false);
  return loaded.definition;
}

const run = (p: Project, def: LoopDefinition) => runLoop(def, { cwd: p.cwd, env: toolEnv(p) });

/** Tests that fail while bugs.txt has lines; the agent removes one line per prompt. */
const TESTS = {
  'run-tests.sh':
    'if [ -s bugs.txt ]; then echo "FAIL: $(wc -l < bugs.txt | tr -d \' \') failing"; exit 1; fi; echo "all tests pass"',
};
const FIX_ONE_BUG = { 'agent.sh': "sed -i '1d' bugs.txt" };

describe('test-until-pass', () => {
  it('tests, lets the agent fix until they pass, and ends in done', async () => {
    const p = sandbox({ ...TESTS, ...FIX_ONE_BUG }, { 'bugs.txt': 'a\nb\n' });
    const { result, states } = await run(p, builtin(p, 'test-until-pass', { test_cmd: './run-tests.sh' }));
    expect(states).toEqual(['test', 'triage', 'budget', 'fix', 'test', 'triage', 'budget', 'fix', 'test', 'done']);
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'done', failure: false, iterations: 3 });
    expect(result.captured.tests).toMatchObject({ exit_code: 0, output: 'all tests pass' });
    const asked = prompts(p);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain('The test command `./run-tests.sh` fails (fix attempt 1 of 5).');
    expect(asked[1]).toContain('(fix attempt 2 of 5)');
  });

  it('gives up after max_fixes attempts the agent cannot fix (failure terminal)', async () => {
    const p = sandbox({ ...TESTS, 'agent.sh': 'echo "looked, changed nothing"' }, { 'bugs.txt': 'a\n' });
    const { result, states } = await run(
      p,
      builtin(p, 'test-until-pass', { test_cmd: './run-tests.sh', max_fixes: '2' }),
    );
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'gave_up', failure: true });
    expect(states.filter((s) => s === 'fix')).toHaveLength(2);
    expect(prompts(p)).toHaveLength(2);
  });

  it('an agent that rewrites the test instead of fixing the code ends the run at agent_failed, naming the file', async () => {
    // The test fails while bugs.txt has lines; the "agent" makes the test print ok instead.
    const p = sandbox({ 'agent.sh': "printf 'echo ok\\n' > tests/test_add.sh" }, { 'bugs.txt': 'add() subtracts\n' });
    mkdirSync(join(p.cwd, 'tests'));
    writeFileSync(
      join(p.cwd, 'tests', 'test_add.sh'),
      'if [ -s bugs.txt ]; then echo "FAIL: add(2, 2) == 0"; exit 1; fi\n',
    );
    const { result, states, events } = await run(
      p,
      builtin(p, 'test-until-pass', { test_cmd: 'sh tests/test_add.sh' }),
    );
    expect(states).toEqual(['test', 'triage', 'budget', 'fix', 'agent_failed']);
    expect(result).toMatchObject({ final_state: 'agent_failed', failure: true });
    const guard = events.find((e) => e.event === 'tamper_guard');
    expect(JSON.stringify(guard)).toContain('tests/test_add.sh');
    expect(result.captured.tests).toMatchObject({ exit_code: 1 });
  });

  it('stops without asking the agent when the test command cannot run (exit 127)', async () => {
    const p = sandbox({});
    const { result } = await run(p, builtin(p, 'test-until-pass', { test_cmd: './no-such-runner' }));
    expect(result).toMatchObject({ final_state: 'not_runnable', failure: true });
    expect(result.captured.tests?.exit_code).toBe(127);
    expect(prompts(p)).toEqual([]);
  });
});

describe('fix-lint', () => {
  const LINT = {
    // lint.txt holds the problems; "auto" ones the linter's own --fix removes.
    'lint.sh': 'if [ -s lint.txt ]; then cat lint.txt; exit 1; fi',
    'autofix.sh': "sed -i '/auto/d' lint.txt; [ ! -s lint.txt ]",
    'agent.sh': "sed -i '1d' lint.txt",
  };

  it('runs the autofix first, then the agent fixes what remains, and ends in done', async () => {
    const p = sandbox(LINT, { 'lint.txt': 'auto: semicolon\nmanual: unused variable x\nauto: quotes\n' });
    const { result, states } = await run(p, builtin(p, 'fix-lint', { lint_cmd: './lint.sh', fix_cmd: './autofix.sh' }));
    expect(states).toEqual([
      'pin',
      'autofix',
      'autofix_triage',
      'lint',
      'triage',
      'budget',
      'fix',
      'lint',
      'unchanged',
      'done',
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const asked = prompts(p);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('The linter `./lint.sh` still reports problems after its autofix');
    expect(readFileSync(join(p.cwd, 'lint.txt'), 'utf8')).toBe('');
  });

  it('ends in agent_failed when the host CLI fails', async () => {
    const p = sandbox({ ...LINT, 'agent.sh': 'echo "agent crashed" >&2; exit 3' }, { 'lint.txt': 'manual: x\n' });
    const { result, states } = await run(p, builtin(p, 'fix-lint', { lint_cmd: './lint.sh', fix_cmd: 'true' }));
    expect(states.slice(-2)).toEqual(['fix', 'agent_failed']);
    expect(result).toMatchObject({ final_state: 'agent_failed', failure: true });
  });
});

describe('fix-types', () => {
  it('checks, lets the agent fix the type errors, and ends in done', async () => {
    const p = sandbox(
      { 'typecheck.sh': 'if [ -s types.txt ]; then cat types.txt; exit 2; fi', 'agent.sh': ': > types.txt' },
      { 'types.txt': "src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n" },
    );
    const { result, states } = await run(p, builtin(p, 'fix-types', { type_cmd: './typecheck.sh' }));
    expect(states).toEqual(['pin', 'check', 'triage', 'budget', 'fix', 'check', 'unchanged', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)).toHaveLength(1);
    expect(prompts(p)[0]).toContain('The type checker `./typecheck.sh` reports errors (fix attempt 1 of 5).');
  });
});

describe('reduce-errors', () => {
  const COUNT = { count_cmd: 'grep -c . errors.txt' };

  it('drives the count to the target, one fix per pass, and ends in done', async () => {
    const p = sandbox({ 'agent.sh': "sed -i '1d' errors.txt" }, { 'errors.txt': 'e1\ne2\ne3\n' });
    const { result, states } = await run(p, builtin(p, 'reduce-errors', COUNT));
    expect(states).toEqual(['measure', 'fix', 'measure', 'fix', 'measure', 'fix', 'measure', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    // grep -c exits 1 when it counts nothing: the count is still read.
    expect(result.captured.errors).toMatchObject({ output: '0', exit_code: 1 });
    expect(prompts(p).map((text) => text.split('\n')[0])).toEqual([
      '`grep -c . errors.txt` counts 3 errors; the goal is 0 or fewer.',
      '`grep -c . errors.txt` counts 2 errors; the goal is 0 or fewer.',
      '`grep -c . errors.txt` counts 1 errors; the goal is 0 or fewer.',
    ]);
  });

  it('stops in stalled when a pass removes no error, and honours a non-zero target', async () => {
    const p = sandbox(
      { 'agent.sh': "sed -i '1d' errors.txt; [ $(wc -l < errors.txt) -gt 2 ] || echo e >> errors.txt" },
      { 'errors.txt': 'e1\ne2\ne3\ne4\n' },
    );
    // 4 → 3 (progress) → 3 (the agent's fix added one back: stall).
    const { result, states } = await run(p, builtin(p, 'reduce-errors', { ...COUNT, target: '1' }));
    expect(states).toEqual(['measure', 'fix', 'measure', 'fix', 'measure', 'stalled']);
    expect(result).toMatchObject({ final_state: 'stalled', failure: true });
    const reached = sandbox({ 'agent.sh': "sed -i '1d' errors.txt" }, { 'errors.txt': 'e1\ne2\n' });
    const second = await run(reached, builtin(reached, 'reduce-errors', { ...COUNT, target: '1' }));
    expect(second.states).toEqual(['measure', 'fix', 'measure', 'done']);
  });
});

describe('coverage-up', () => {
  it('adds tests (one round repaired) until coverage reaches the target, and ends in done', async () => {
    const p = sandbox({
      // Each test file covers 30 more percent; a test containing "broken" fails.
      'coverage.sh': 'n=$(ls tests | wc -l); echo "$((20 + 30 * n))"',
      'run-tests.sh': 'if grep -l broken tests/* 2>/dev/null; then exit 1; fi; exit 0',
      // The agent's first test is broken; asked to repair, it fixes it.
      'agent.sh': [
        'case "$1" in',
        '  *"Fix the new tests"*) sed -i s/broken/fixed/ tests/* ;;',
        '  *) n=$(ls tests | wc -l); if [ "$n" = 0 ]; then echo broken > tests/t0; else echo ok > "tests/t$n"; fi ;;',
        'esac',
      ].join('\n'),
    });
    mkdirSync(join(p.cwd, 'tests'));
    const def = builtin(p, 'coverage-up', { coverage_cmd: './coverage.sh', test_cmd: './run-tests.sh' });
    expect(def.context.target).toBe(80);
    const { result, states } = await run(p, def);
    expect(states).toEqual([
      'baseline',
      'measure',
      'add_tests',
      'verify',
      'repair',
      'reverify',
      'measure',
      'add_tests',
      'verify',
      'measure',
      'done',
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(result.captured.coverage?.output).toBe('80');
    const asked = prompts(p);
    expect(asked).toHaveLength(3);
    expect(asked[0]).toContain('Test coverage is 20%; the goal is 80%.');
    expect(asked[1]).toContain('`./run-tests.sh` fails after new tests were added.');
    expect(asked[2]).toContain('Test coverage is 50%; the goal is 80%.');
  });

  it('refuses to start on a failing suite (failure terminal, no agent)', async () => {
    const p = sandbox({ 'coverage.sh': 'echo 10', 'run-tests.sh': 'exit 1' });
    const { result, states } = await run(
      p,
      builtin(p, 'coverage-up', { coverage_cmd: './coverage.sh', test_cmd: './run-tests.sh' }),
    );
    expect(states).toEqual(['baseline', 'tests_triage', 'tests_fail_before']);
    expect(result).toMatchObject({ failure: true });
    expect(prompts(p)).toEqual([]);
  });
});

describe('built-ins as sub-loops', () => {
  it('a parent runs fix-lint and fix-types with with:, routing on each child outcome', async () => {
    const p = sandbox(
      {
        'lint.sh': 'if [ -s lint.txt ]; then cat lint.txt; exit 1; fi',
        'typecheck.sh': 'if [ -s types.txt ]; then cat types.txt; exit 1; fi',
        // The agent fixes lint, but not types.
        'agent.sh': 'case "$1" in *linter*) : > lint.txt ;; esac',
      },
      { 'lint.txt': 'unused import\n', 'types.txt': 'error TS2304\n' },
    );
    mkdirSync(join(p.cwd, '.loops'));
    writeFileSync(
      join(p.cwd, '.loops', 'quality.yaml'),
      `name: quality
description: lint, then types, using the built-in loops
initial: lint
states:
  lint:
    loop: fix-lint
    with: { lint_cmd: ./lint.sh, fix_cmd: "true", max_fixes: 1 }
    on_success: types
    on_failure: failed
    on_error: failed
  types:
    loop: fix-types
    with: { type_cmd: ./typecheck.sh, max_fixes: 2 }
    on_success: done
    on_failure: types_left
    on_error: failed
  done: { terminal: true }
  types_left:
    action: "echo 'types left after \${result.details.iterations} passes'"
    terminal: true
  failed: { terminal: true, failure: true }
`,
    );
    const loaded = loadLoop('quality', p.cwd);
    if (!loaded.definition) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
    const { result, states, events } = await run(p, loaded.definition);
    expect(states).toEqual(['lint', 'types', 'types_left']);
    expect(result).toMatchObject({ final_state: 'types_left', failure: false });
    expect(events.filter((e) => e.event === 'subloop_complete')).toMatchObject([
      { state: 'lint', loop: 'fix-lint', final_state: 'done', verdict: 'yes' },
      { state: 'types', loop: 'fix-types', final_state: 'gave_up', verdict: 'no' },
    ]);
    // One lint fix, then the two type-fix attempts max_fixes allowed.
    expect(prompts(p).map((text) => text.split(' ').slice(0, 2).join(' '))).toEqual([
      'The linter',
      'The type',
      'The type',
    ]);
  });
});

describe('ll-loop run <built-in>', () => {
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

  it('resolves the name to the catalog, runs it with --context, and exits 0', async () => {
    const p = sandbox({ ...TESTS, ...FIX_ONE_BUG }, { 'bugs.txt': 'a\n' });
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    process.env.LL_HOST_CLI = join(p.bin, 'claude');
    const args = ['test-until-pass', '--context', 'test_cmd=./run-tests.sh', '--context', 'max_fixes=2', '--json'];
    const { code, stdout: out } = await runCliInProcess(args, { cwd: p.cwd });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)[0]).toContain('(fix attempt 1 of 2)');
  });
});

/**
 * The built-ins code-run-gate and fix-bug run on the test run's real Temporal server with a
 * scripted agent. code-run-gate: the honest fixer makes the program print the expected output;
 * an agent that rewrites the expected output instead ends in oracle_changed; a program or an
 * oracle that is missing ends the run before any agent call. fix-bug: the honest agent writes a
 * failing test, then the fix, proven against the last commit; an agent that edits the test while
 * fixing, writes a test that does not fail, or breaks the code to make its test fail and then
 * "fixes" that, never reaches done.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal } from './harness.js';
import { builtin, git, prompts, repo, runIn, sandbox } from './catalog-sandbox.js';

afterAll(closeTemporal);

describe('code-run-gate', () => {
  const FILES = { 'src.txt': 'hello\nword\n', 'expected-output.txt': 'hello\nworld\n' };
  const PROGRAM = { 'prog.sh': 'cat src.txt' };

  it('runs the program, shows the agent the difference, and ends in done once the output matches', async () => {
    const p = sandbox({ ...PROGRAM, 'agent.sh': "printf 'hello\\nworld\\n' > src.txt" }, FILES);
    const { result, states } = await runIn(p, builtin(p, 'code-run-gate', { run_cmd: './prog.sh' }));
    expect(states).toEqual(['fingerprint', 'run', 'triage', 'budget', 'fix', 'intact', 'run', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const asked = prompts(p);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('(fix attempt 1 of 5)');
    expect(asked[0]).toContain('-world');
    expect(asked[0]).toContain('+word');
  });

  it('an agent that rewrites the expected output to match the program ends in oracle_changed, not done', async () => {
    const p = sandbox({ ...PROGRAM, 'agent.sh': './prog.sh > expected-output.txt' }, FILES);
    const { result, states } = await runIn(p, builtin(p, 'code-run-gate', { run_cmd: './prog.sh' }));
    expect(states).toEqual(['fingerprint', 'run', 'triage', 'budget', 'fix', 'intact', 'oracle_changed']);
    expect(result).toMatchObject({ final_state: 'oracle_changed', failure: true });
    expect(readFileSync(join(p.cwd, 'src.txt'), 'utf8')).toBe('hello\nword\n');
  });

  it('without an expected file, exit 0 is the gate', async () => {
    const p = sandbox(
      { 'prog.sh': '[ ! -e broken ] || { echo "crash: broken"; exit 3; }', 'agent.sh': 'rm broken' },
      {
        broken: '',
      },
    );
    const { result, states } = await runIn(p, builtin(p, 'code-run-gate', { run_cmd: './prog.sh', expected_file: '' }));
    expect(states.at(-1)).toBe('done');
    expect(result).toMatchObject({ final_state: 'done', iterations: 2 });
    expect(prompts(p)[0]).toContain('the program exited 3');
  });

  it('ends at once, without the agent, when the program cannot start or the expected file is missing', async () => {
    const p = sandbox({ ...PROGRAM, 'agent.sh': 'exit 0' }, FILES);
    const missing = await runIn(p, builtin(p, 'code-run-gate', { run_cmd: './no-such-program --flag' }));
    expect(missing.states).toEqual(['fingerprint', 'run', 'triage', 'not_runnable']);
    expect(missing.result).toMatchObject({ final_state: 'not_runnable', failure: true });
    expect(missing.result.captured.check?.exit_code).toBe(127);
    const noOracle = await runIn(p, builtin(p, 'code-run-gate', { run_cmd: './prog.sh', expected_file: 'gone.txt' }));
    expect(noOracle.states).toEqual(['fingerprint', 'no_oracle']);
    expect(noOracle.result).toMatchObject({ final_state: 'no_oracle', failure: true });
    expect(prompts(p)).toEqual([]);
  });
});

describe('fix-bug', () => {
  // calc.sh should add; it subtracts. The suite runs tests/t_*.sh; the one there passes anyway.
  const FILES = {
    'calc.sh': 'echo $(( $1 - $2 ))\n',
    'other.sh': 'echo ok\n',
    'tests/run.sh': 'for t in tests/t_*.sh; do sh "$t" || { echo "FAIL $t"; exit 1; }; done; echo "all pass"\n',
    'tests/t_zero.sh': '[ "$(sh calc.sh 2 0)" = 2 ]\n',
  };
  const IGNORE = 'agent.sh\nbin/\ntools/\nprompts/\n';
  const BUG = 'calc.sh 2 2 prints 0, not 4';
  const REPRODUCE = `printf '[ "$(sh calc.sh 2 2)" = 4 ]\\n' > tests/t_add.sh`;
  const FIX = "sed -i 's/- \\$2/+ $2/' calc.sh";
  const agent = (reproduce: string, fix: string) => ({
    'agent.sh': `case "$1" in *"Do not fix the bug yet"*) ${reproduce} ;; *) ${fix} ;; esac`,
  });
  const run = (p: ReturnType<typeof repo>) =>
    runIn(p, builtin(p, 'fix-bug', { bug: BUG, test_cmd: 'sh tests/run.sh' }));

  it('reproduces the bug with a failing test, fixes the code, proves the test fails without the fix: done', async () => {
    const p = repo(agent(REPRODUCE, FIX), FILES, IGNORE);
    const { result, states, events } = await run(p);
    expect(states).toEqual([
      'clean',
      'baseline',
      'reproduce',
      'reproduced',
      'repro_triage',
      'budget',
      'fix',
      'verify',
      'done',
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(events.find((e) => e.event === 'prepatch_check')).toMatchObject({ state: 'verify', outcome: 'clean' });
    const asked = prompts(p);
    expect(asked[0]).toContain(`A bug: ${BUG}`);
    expect(asked[1]).toContain('FAIL tests/t_add.sh');
    expect(git(p, 'status', '--porcelain').trim().split('\n').sort()).toEqual(['?? tests/t_add.sh', 'M calc.sh']);
  });

  it('an agent that changes the new test while fixing ends in agent_failed', async () => {
    const p = repo(agent(REPRODUCE, "printf 'true\\n' > tests/t_add.sh"), FILES, IGNORE);
    const { result, states, events } = await run(p);
    expect(states.slice(-2)).toEqual(['fix', 'agent_failed']);
    expect(result).toMatchObject({ final_state: 'agent_failed', failure: true });
    expect(JSON.stringify(events.find((e) => e.event === 'tamper_guard'))).toContain('tests/t_add.sh');
  });

  it('a test that passes (it does not reproduce the bug) ends in not_reproduced, before any fix', async () => {
    const p = repo(agent(`printf 'true\\n' > tests/t_add.sh`, FIX), FILES, IGNORE);
    const { result, states } = await run(p);
    expect(states).toEqual(['clean', 'baseline', 'reproduce', 'reproduced', 'not_reproduced']);
    expect(result).toMatchObject({ final_state: 'not_reproduced', failure: true });
    expect(prompts(p)).toHaveLength(1);
  });

  it('an agent that breaks the code for its test to fail, then "fixes" that, is not proven', async () => {
    const p = repo(
      agent(
        `printf '[ "$(sh other.sh)" = ok ]\\n' > tests/t_other.sh; echo 'echo bad' > other.sh`,
        "echo 'echo ok' > other.sh",
      ),
      FILES,
      IGNORE,
    );
    const { result, states, events } = await run(p);
    expect(states.slice(-3)).toEqual(['verify', 'proof', 'not_proven']);
    expect(result).toMatchObject({ final_state: 'not_proven', failure: true });
    expect(events.find((e) => e.event === 'prepatch_check')).toMatchObject({ outcome: 'flagged' });
    expect(existsSync(join(p.cwd, 'tests', 't_other.sh'))).toBe(true);
  });
});

/**
 * perf-guard on the test run's real Temporal server, in a git repository whose benchmark prints the
 * figure in cost.txt: the baseline is measured on HEAD with the uncommitted changes stashed and put
 * back; a working tree slower beyond the tolerance goes to the scripted agent until it is not, with
 * the tests passing after each fix; a benchmark that cannot run ends at once.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal } from './harness.js';
import { builtin, prompts, runIn, sandbox, type Sandbox } from './catalog-sandbox.js';

afterAll(closeTemporal);

function git(p: Sandbox, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: p.cwd,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

/** HEAD's cost is 100; the working tree's is `now`, plus an untracked file of the change. */
function repo(now: string, agent: string): Sandbox {
  const p = sandbox({
    'bench.sh': 'echo "warming up"; cat cost.txt',
    'tests.sh': '[ ! -e broken ]',
    'agent.sh': agent,
  });
  writeFileSync(join(p.cwd, '.gitignore'), 'bin/\ntools/\nprompts/\n');
  writeFileSync(join(p.cwd, 'cost.txt'), '100\n');
  git(p, 'init', '-q');
  git(p, 'add', '-A');
  git(p, 'commit', '-qm', 'start');
  writeFileSync(join(p.cwd, 'cost.txt'), `${now}\n`);
  writeFileSync(join(p.cwd, 'new-module.txt'), 'the change\n');
  return p;
}

const COMMANDS = { bench_cmd: './bench.sh', test_cmd: './tests.sh' };

describe('perf-guard', () => {
  it('measures HEAD, lets the agent fix a regression (repairing the tests it broke), and ends in done', async () => {
    // The first fix is fast but breaks a test; asked again, the agent repairs the test.
    const p = repo('150', 'if [ -e fixed ]; then rm broken; else echo 102 > cost.txt; touch fixed broken; fi');
    const { result, states } = await runIn(p, builtin(p, 'perf-guard', COMMANDS));
    expect(states).toEqual([
      'baseline',
      'measure',
      'budget',
      'fix',
      'verify',
      'tests_triage',
      'budget',
      'fix',
      'verify',
      'measure',
      'done',
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(result.captured.limit?.output).toBe('105');
    expect(result.captured.figure?.output).toBe('warming up\n102');
    const asked = prompts(p);
    expect(asked[0]).toContain('measures warming up\n150 on the working tree');
    expect(asked[0]).toContain('at most 105 is allowed');
    // The change was put back after the baseline: nothing is left in the stash.
    expect(git(p, 'stash', 'list')).toBe('');
    expect(readFileSync(join(p.cwd, 'new-module.txt'), 'utf8')).toBe('the change\n');
  });

  it('ends in done without the agent when the working tree is within the tolerance', async () => {
    const p = repo('104', 'touch agent-ran');
    const { result, states } = await runIn(p, builtin(p, 'perf-guard', COMMANDS));
    expect(states).toEqual(['baseline', 'measure', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)).toEqual([]);
    expect(readFileSync(join(p.cwd, 'cost.txt'), 'utf8')).toBe('104\n');
  });

  it('ends at once in baseline_failed when the benchmark cannot run, with the changes back in place', async () => {
    const p = repo('150', 'touch agent-ran');
    const { result, states } = await runIn(p, builtin(p, 'perf-guard', { ...COMMANDS, bench_cmd: './no-such-bench' }));
    expect(states).toEqual(['baseline', 'baseline_failed']);
    expect(result).toMatchObject({ final_state: 'baseline_failed', failure: true });
    expect(prompts(p)).toEqual([]);
    expect(git(p, 'stash', 'list')).toBe('');
    expect(readFileSync(join(p.cwd, 'cost.txt'), 'utf8')).toBe('150\n');
  });
});

/**
 * bisect-regression on the test run's real Temporal server, in a real git repository: it reports
 * the first bad commit; both ends are checked first (a test that cannot run, a regression that does
 * not reproduce); a dirty tree is refused; and in every case the repository is left as found: not
 * bisecting, on its branch, its files untouched.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal } from './harness.js';
import { builtin, runIn, sandbox, type Sandbox } from './catalog-sandbox.js';

afterAll(closeTemporal);

function git(p: Sandbox, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: p.cwd,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

/** Six commits of code.txt; the fourth brings the bug. Returns the repository and that commit. */
function history(): { p: Sandbox; culprit: string } {
  const p = sandbox({});
  writeFileSync(join(p.cwd, '.gitignore'), 'bin/\ntools/\n');
  git(p, 'init', '-q', '-b', 'main');
  let culprit = '';
  for (let n = 1; n <= 6; n++) {
    writeFileSync(join(p.cwd, 'code.txt'), `version ${n}${n >= 4 ? ' bug' : ''}\n`);
    git(p, 'add', '-A');
    git(p, 'commit', '-qm', `change ${n}`);
    if (n === 4) culprit = git(p, 'rev-parse', 'HEAD');
  }
  return { p, culprit };
}

/** Not bisecting, on main at its last commit, nothing changed. */
function leftAsFound(p: Sandbox, head: string): void {
  expect(existsSync(join(p.cwd, '.git', 'BISECT_LOG'))).toBe(false);
  expect(git(p, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
  expect(git(p, 'rev-parse', 'HEAD')).toBe(head);
  expect(git(p, 'status', '--porcelain', '--untracked-files=no')).toBe('');
}

const TEST = '! grep -q bug code.txt';

describe('bisect-regression', () => {
  it('reports the first bad commit and leaves the repository as it found it', async () => {
    const { p, culprit } = history();
    const head = git(p, 'rev-parse', 'HEAD');
    const def = builtin(p, 'bisect-regression', { good_ref: 'HEAD~5', test_cmd: TEST });
    const { result, states } = await runIn(p, def);
    expect(states).toEqual(['bisect', 'found']);
    expect(result).toMatchObject({ final_state: 'found', failure: false });
    expect(result.captured.bisect?.output).toContain(`# first bad commit: [${culprit}] change 4`);
    leftAsFound(p, head);
  });

  it('ends at once in not_runnable when the test command cannot run, touching nothing', async () => {
    const { p } = history();
    const head = git(p, 'rev-parse', 'HEAD');
    const { result, states } = await runIn(
      p,
      builtin(p, 'bisect-regression', { good_ref: 'HEAD~5', test_cmd: './no-such-test' }),
    );
    expect(states).toEqual(['bisect', 'outcome', 'not_runnable']);
    expect(result).toMatchObject({ final_state: 'not_runnable', failure: true });
    leftAsFound(p, head);
  });

  it('refuses when the regression does not reproduce at bad_ref, or the good ref fails too', async () => {
    const { p } = history();
    const head = git(p, 'rev-parse', 'HEAD');
    const passing = await runIn(p, builtin(p, 'bisect-regression', { good_ref: 'HEAD~5', test_cmd: 'true' }));
    expect(passing.result).toMatchObject({ final_state: 'not_reproduced', failure: true });
    const failing = await runIn(p, builtin(p, 'bisect-regression', { good_ref: 'HEAD~1', test_cmd: TEST }));
    expect(failing.result).toMatchObject({ final_state: 'good_fails', failure: true });
    leftAsFound(p, head);
  });

  it('refuses a dirty working tree and keeps the change', async () => {
    const { p } = history();
    writeFileSync(join(p.cwd, 'code.txt'), 'my unfinished edit\n');
    const { result, states } = await runIn(p, builtin(p, 'bisect-regression', { good_ref: 'HEAD~5', test_cmd: TEST }));
    expect(states).toEqual(['bisect', 'outcome', 'failed']);
    expect(result).toMatchObject({ final_state: 'failed', failure: true });
    expect(result.captured.bisect?.output).toContain('the working tree has uncommitted changes');
    expect(readFileSync(join(p.cwd, 'code.txt'), 'utf8')).toBe('my unfinished edit\n');
    expect(existsSync(join(p.cwd, '.git', 'BISECT_LOG'))).toBe(false);
  });
});

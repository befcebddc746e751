/**
 * The built-ins fan-out-files and file-task on the test run's real Temporal server with a scripted
 * agent: each listed file is done in its own git worktree by a file-task child run, which commits
 * it on the worktree's branch; the checkout stays as it was; a test command that cannot run ends
 * the run before any worktree or agent call.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal } from './harness.js';
import { builtin, prompts, runIn, sandbox, type Sandbox } from './catalog-sandbox.js';

afterAll(closeTemporal);

const git = (p: Sandbox, ...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: p.cwd,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

/** A committed repository whose scripts are committed too, so that each worktree has them. */
function repo(): Sandbox {
  const p = sandbox({
    'tests.sh': '! grep -q broken src/*.txt',
    // Does the task to the file its prompt names (the prompts are recorded in the worktree).
    'agent.sh': 'f=$(printf "%s\\n" "$1" | sed -n "s/^Do it to this one file only: //p"); sed -i s/var/let/ "$f"',
  });
  mkdirSync(join(p.cwd, 'src'));
  writeFileSync(join(p.cwd, 'src', 'a.txt'), 'var a\n');
  writeFileSync(join(p.cwd, 'src', 'b.txt'), 'var b\n');
  writeFileSync(join(p.cwd, '.gitignore'), 'bin/\ntools/\nprompts/\n');
  git(p, 'init', '-q');
  git(p, 'add', '-A');
  git(p, 'commit', '-qm', 'start');
  return p;
}

const params = { task: 'Use let', files_cmd: 'git ls-files src', test_cmd: './tests.sh', setup_cmd: 'true' };

describe('fan-out-files', () => {
  it('does each file in its own worktree, commits each on its branch, leaves the checkout alone, and ends in done', async () => {
    const p = repo();
    const { result, states, workflowId } = await runIn(p, builtin(p, 'fan-out-files', params));
    expect(states).toEqual(['baseline', 'list', 'fan_out', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    for (const [n, file, text] of [
      [0, 'src/a.txt', 'let a'],
      [1, 'src/b.txt', 'let b'],
    ] as const) {
      const branch = `ll-loop/${workflowId}/${n}`;
      expect(git(p, 'show', '--name-only', '--format=%s', branch).trim().split('\n')).toEqual([
        `file-task: ${file}`,
        '',
        file,
      ]);
      expect(git(p, 'show', `${branch}:${file}`).trim()).toBe(text);
    }
    expect(readFileSync(join(p.cwd, 'src', 'a.txt'), 'utf8')).toBe('var a\n');
    expect(git(p, 'status', '--porcelain', '--untracked-files=no')).toBe('');
  });

  it('ends at once in not_runnable when the test command is missing, before any worktree or agent call', async () => {
    const p = repo();
    const { result, states } = await runIn(p, builtin(p, 'fan-out-files', { ...params, test_cmd: './no-such-tests' }));
    expect(states).toEqual(['baseline', 'tests_triage', 'not_runnable']);
    expect(result).toMatchObject({ final_state: 'not_runnable', failure: true });
    expect(git(p, 'branch', '--list', 'll-loop/*').trim()).toBe('');
    expect(prompts(p)).toEqual([]);
  });
});

describe('file-task', () => {
  it('on its own: changes the one file until the tests pass and commits it', async () => {
    const p = repo();
    const { result, states } = await runIn(
      p,
      builtin(p, 'file-task', { task: 'Use let', file: 'src/b.txt', test_cmd: './tests.sh', setup_cmd: 'true' }),
    );
    expect(states).toEqual(['setup', 'baseline', 'budget', 'work', 'verify', 'commit', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)[0]).toContain('Do it to this one file only: src/b.txt');
    expect(git(p, 'log', '-1', '--format=%s').trim()).toBe('file-task: src/b.txt');
    expect(readFileSync(join(p.cwd, 'src', 'a.txt'), 'utf8')).toBe('var a\n');
  });
});

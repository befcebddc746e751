/**
 * The task built-ins (general-task, dead-code) run on the test run's real Temporal server with a
 * scripted agent: the honest agent reaches `done`; a definition of done that passes before any work,
 * a missing test runner or finder, and a dirty tree end at once, before any work.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal } from './harness.js';
import { builtin, prompts, runIn, sandbox, type Sandbox } from './catalog-sandbox.js';

afterAll(closeTemporal);

describe('general-task', () => {
  const TASK = 'Write a greeting file';
  // The definition of done it writes when asked; then two rounds of work, the first one wrong.
  const AGENT = [
    'case "$1" in',
    '  *"Do not start the work yet"*) printf "test -e greeting.txt\\ngrep -q hello greeting.txt\\n" > .ll-loop-done.sh ;;',
    '  *) if [ -e greeting.txt ]; then echo hello > greeting.txt; else echo hi > greeting.txt; fi ;;',
    'esac',
  ].join('\n');

  it('writes its definition of done first, works until it and the tests pass, and ends in done', async () => {
    const p = sandbox({ 'agent.sh': AGENT, 'tests.sh': 'exit 0' });
    const { result, states } = await runIn(p, builtin(p, 'general-task', { task: TASK, test_cmd: './tests.sh' }));
    expect(states).toEqual([
      'baseline',
      'define',
      'before_work',
      'defined',
      'work',
      'check',
      'still_defined',
      'budget',
      'work',
      'check',
      'tests',
      'done',
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const asked = prompts(p);
    expect(asked).toHaveLength(3);
    expect(asked[0]).toContain(`Your task: ${TASK}`);
    expect(asked[1]).toContain('(round 1 of 5)');
    // The failing check's trace (sh -x) reaches the next round.
    expect(asked[2]).toContain('grep -q hello greeting.txt');
  });

  it('stops when the definition already passes before any work, without doing the work', async () => {
    const p = sandbox({
      'agent.sh': 'case "$1" in *"Do not start the work yet"*) echo true > .ll-loop-done.sh ;; *) touch worked ;; esac',
      'tests.sh': 'exit 0',
    });
    const { result, states } = await runIn(p, builtin(p, 'general-task', { task: TASK, test_cmd: './tests.sh' }));
    expect(states).toEqual(['baseline', 'define', 'before_work', 'passes_before_work']);
    expect(result).toMatchObject({ final_state: 'passes_before_work', failure: true });
    expect(existsSync(join(p.cwd, 'worked'))).toBe(false);
  });

  it('stops when the agent writes no definition', async () => {
    const p = sandbox({ 'agent.sh': 'echo "I will just start"', 'tests.sh': 'exit 0' });
    const { result, states } = await runIn(p, builtin(p, 'general-task', { task: TASK, test_cmd: './tests.sh' }));
    expect(states).toEqual(['baseline', 'define', 'before_work', 'defined', 'no_definition']);
    expect(result).toMatchObject({ failure: true });
    expect(prompts(p)).toHaveLength(1);
  });

  it('ends at once in tests_not_runnable when the test runner is missing, without the agent', async () => {
    const p = sandbox({ 'agent.sh': AGENT });
    const { result, states } = await runIn(p, builtin(p, 'general-task', { task: TASK, test_cmd: './no-such-tests' }));
    expect(states).toEqual(['baseline', 'baseline_triage', 'tests_not_runnable']);
    expect(result).toMatchObject({ final_state: 'tests_not_runnable', failure: true });
    expect(prompts(p)).toEqual([]);
  });
});

describe('dead-code', () => {
  const git = (p: Sandbox, ...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd: p.cwd,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };

  /** A committed repository: src/ holds main.txt and the given files; the scripts are ignored. */
  function repo(files: string[], scripts: Record<string, string>): Sandbox {
    const p = sandbox({
      // Lists every src file but main.txt as unused; exits 1 while it lists any.
      'find.sh': 'out=$(ls src | grep -v -x main.txt); [ -z "$out" ] || { echo "$out"; exit 1; }',
      ...scripts,
    });
    mkdirSync(join(p.cwd, 'src'));
    for (const f of ['main.txt', ...files]) writeFileSync(join(p.cwd, 'src', f), `${f}\n`);
    writeFileSync(join(p.cwd, '.gitignore'), '*.sh\nbin/\ntools/\nprompts/\n');
    git(p, 'init', '-q');
    git(p, 'add', '-A');
    git(p, 'commit', '-qm', 'start');
    return p;
  }

  /** Removes the first listed file whose earlier removal was not reverted (named in the prompt). */
  const AGENT =
    'for f in $(ls src | grep -v -x main.txt); do case "$1" in *"src/$f |"*) continue ;; esac; rm "src/$f"; exit 0; done';

  it('removes one item per step, stages each step the tests pass, and ends in done', async () => {
    const p = repo(['a.txt', 'c.txt'], { 'agent.sh': AGENT, 'tests.sh': '[ -e src/main.txt ]' });
    const { result, states } = await runIn(
      p,
      builtin(p, 'dead-code', { find_cmd: './find.sh', test_cmd: './tests.sh' }),
    );
    const step = ['find', 'triage', 'budget', 'remove', 'verify', 'keep'];
    expect(states).toEqual(['clean', 'baseline', ...step, ...step, 'find', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)[0]).toContain('Remove exactly ONE item');
    expect(git(p, 'diff', '--cached', '--name-status').trim().split('\n')).toEqual(['D\tsrc/a.txt', 'D\tsrc/c.txt']);
  });

  it('reverts a step that breaks the tests, keeps the others, and stops at max_steps', async () => {
    // b.txt is used in a way the finder cannot see: removing it breaks the tests.
    const p = repo(['a.txt', 'b.txt', 'c.txt'], {
      'agent.sh': AGENT,
      'tests.sh': '[ -e src/main.txt ] && [ -e src/b.txt ]',
    });
    const def = builtin(p, 'dead-code', { find_cmd: './find.sh', test_cmd: './tests.sh', max_steps: '4' });
    const { result, states } = await runIn(p, def);
    expect(states.filter((s) => s === 'keep' || s === 'revert')).toEqual(['keep', 'revert', 'keep', 'keep']);
    expect(result).toMatchObject({ final_state: 'step_limit', failure: false });
    expect(prompts(p)[2]).toContain('src/b.txt |');
    expect(existsSync(join(p.cwd, 'src', 'b.txt'))).toBe(true);
    expect(git(p, 'diff', '--cached', '--name-status').trim().split('\n')).toEqual(['D\tsrc/a.txt', 'D\tsrc/c.txt']);
    expect(git(p, 'status', '--porcelain', '--untracked-files=no').trim().split('\n')).toEqual([
      'D  src/a.txt',
      'D  src/c.txt',
    ]);
  });

  it('ends at once when the finder is missing or the tree is dirty, without the agent', async () => {
    const p = repo(['a.txt'], { 'agent.sh': AGENT, 'tests.sh': 'exit 0' });
    const missing = await runIn(p, builtin(p, 'dead-code', { find_cmd: 'no-such-finder', test_cmd: './tests.sh' }));
    expect(missing.states).toEqual(['clean', 'baseline', 'find', 'triage', 'not_runnable']);
    expect(missing.result).toMatchObject({ final_state: 'not_runnable', failure: true });
    writeFileSync(join(p.cwd, 'src', 'main.txt'), 'an edit of mine\n');
    const dirty = await runIn(p, builtin(p, 'dead-code', { find_cmd: './find.sh', test_cmd: './tests.sh' }));
    expect(dirty.states).toEqual(['clean', 'dirty']);
    expect(prompts(p)).toEqual([]);
  });
});

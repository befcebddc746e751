/**
 * The built-ins flaky-tests, incremental-refactor, dependency-upgrades, docs-sync and review-and-fix run on the test run's real Temporal server
 * with a scripted agent: the honest agent reaches `done`; a test command that cannot run ends at
 * once, before any agent call; tests failing on every run are not flaky; a refactoring step that
 * breaks the tests is reverted and done again; an upgrade that breaks them is reverted, the old
 * versions reinstalled, and not tried again; docs-sync's own link check finds a broken link; review-and-fix's judge (the host CLI's
 * structured answer) sends its findings to the agent, and a judge that cannot tell hands over.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal } from './harness.js';
import { builtin, prompts, runIn, sandbox, type Sandbox } from './catalog-sandbox.js';

afterAll(closeTemporal);

describe('flaky-tests', () => {
  // Fails on every other run (a counter in .runs) until the agent fixes the cause (./fixed).
  const FLAKY =
    'n=$(cat .runs 2>/dev/null || echo 0); echo $((n + 1)) > .runs; [ -e fixed ] && exit 0; [ $((n % 2)) -eq 0 ] || { echo "not ok 3 - cache expires (timed out)"; exit 1; }';
  const HONEST = 'touch fixed; printf "## cache expires\\nrace on the clock; fixed: fake timers\\n" >> flaky-tests.md';

  it('finds the tests failing on some runs, lets the agent fix the cause and report it, and ends in done', async () => {
    const p = sandbox({ 'tests.sh': FLAKY, 'agent.sh': HONEST });
    const { result, states } = await runIn(p, builtin(p, 'flaky-tests', { test_cmd: './tests.sh' }));
    expect(states).toEqual(['probe', 'rerun', 'some_or_all', 'budget', 'fix', 'reported', 'rerun', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const asked = prompts(p);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('fix attempt 1 of 3');
    // Reruns 1, 3 and 5 failed (the probe before them passed); the first failure's output is shown.
    expect(asked[0]).toContain('failed_runs=3 of 5');
    expect(asked[0]).toContain('run 1 of 5 failed (exit 1):');
    expect(asked[0]).toContain('not ok 3 - cache expires (timed out)');
    expect(readFileSync(join(p.cwd, 'flaky-tests.md'), 'utf8')).toContain('## cache expires');
    // 1 probe + 5 reruns + 5 reruns after the fix.
    expect(readFileSync(join(p.cwd, '.runs'), 'utf8').trim()).toBe('11');
  });

  it('ends in no_report when the agent changes things without reporting them', async () => {
    const p = sandbox({ 'tests.sh': FLAKY, 'agent.sh': 'touch fixed' });
    const { result, states } = await runIn(p, builtin(p, 'flaky-tests', { test_cmd: './tests.sh', runs: '3' }));
    expect(states.slice(-3)).toEqual(['fix', 'reported', 'no_report']);
    expect(result).toMatchObject({ final_state: 'no_report', failure: true });
  });

  it('ends without the agent when the tests fail on every run (fails_always) or cannot run (not_runnable)', async () => {
    const p = sandbox({ 'tests.sh': 'echo "not ok 1"; exit 1', 'agent.sh': HONEST });
    const always = await runIn(p, builtin(p, 'flaky-tests', { test_cmd: './tests.sh', runs: '3' }));
    expect(always.states).toEqual(['probe', 'triage', 'rerun', 'some_or_all', 'fails_always']);
    expect(always.result).toMatchObject({ final_state: 'fails_always', failure: true });
    const missing = await runIn(p, builtin(p, 'flaky-tests', { test_cmd: './no-such-tests' }));
    expect(missing.states).toEqual(['probe', 'triage', 'not_runnable']);
    expect(missing.result).toMatchObject({ final_state: 'not_runnable', failure: true });
    expect(missing.result.captured.tests?.exit_code).toBe(127);
    expect(prompts(p)).toEqual([]);
  });
});

const git = (p: Sandbox, ...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: p.cwd,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

/** A committed repository with the given files; the scripts and what the fakes write are ignored. */
function repo(scripts: Record<string, string>, files: Record<string, string>): Sandbox {
  const p = sandbox(scripts);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(p.cwd, name, '..'), { recursive: true });
    writeFileSync(join(p.cwd, name), text);
  }
  writeFileSync(join(p.cwd, '.gitignore'), '*.sh\nbin/\ntools/\nprompts/\ninstalls\n');
  git(p, 'init', '-q');
  git(p, 'add', '-A');
  git(p, 'commit', '-qm', 'start');
  return p;
}

describe('incremental-refactor', () => {
  const GOAL = 'Rename old to new';
  const SRC = { 'src/a.txt': 'old\n', 'src/b.txt': 'old\n' };

  // Plans one step per file; does the first open step and ticks it. Its first try at src/a.txt
  // breaks the file; once the revert's diffstat names it in the prompt, it does the step properly.
  const AGENT = [
    'case "$1" in',
    '  *"Do not change any code yet"*) printf -- "- [ ] rename in src/a.txt\\n- [ ] rename in src/b.txt\\n" > .ll-loop-refactor.md; exit 0 ;;',
    'esac',
    'f=$(grep -m1 "^- \\[ \\]" .ll-loop-refactor.md | sed "s/.* //")',
    'case "$f:$1" in',
    '  "src/a.txt:"*" src/a.txt "*) sed -i s/old/new/ "$f" ;;',
    '  src/a.txt:*) echo broken > "$f" ;;',
    '  *) sed -i s/old/new/ "$f" ;;',
    'esac',
    'sed -i "0,/^- \\[ \\]/s//- [x]/" .ll-loop-refactor.md',
  ].join('\n');
  const TESTS = 'for f in src/a.txt src/b.txt; do grep -q -x -e old -e new "$f" || { echo "FAIL $f"; exit 1; }; done';

  it('plans, does one step at a time, reverts and redoes a step that breaks the tests, and ends in done', async () => {
    const p = repo({ 'agent.sh': AGENT, 'tests.sh': TESTS }, SRC);
    const { result, states } = await runIn(
      p,
      builtin(p, 'incremental-refactor', { goal: GOAL, test_cmd: './tests.sh' }),
    );
    const step = ['remaining', 'budget', 'step', 'verify'];
    expect(states).toEqual([
      'clean',
      'baseline',
      'plan',
      'planned',
      'keep_plan',
      ...step,
      'revert',
      ...step,
      'keep',
      ...step,
      'keep',
      'remaining',
      'done',
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const asked = prompts(p);
    expect(asked).toHaveLength(4);
    expect(asked[0]).toContain(`Refactoring goal: ${GOAL}`);
    expect(asked[1]).toContain('- [ ] rename in src/a.txt');
    // The revert's diffstat (` src/a.txt   | 2 +-`) reaches the next prompt; a kept step clears it.
    expect(asked[2]).toMatch(/ src\/a\.txt +\| /);
    expect(asked[3]).not.toMatch(/ src\/a\.txt +\| /);
    expect(git(p, 'diff', '--cached', '--name-status').trim().split('\n')).toEqual([
      'A\t.ll-loop-refactor.md',
      'M\tsrc/a.txt',
      'M\tsrc/b.txt',
    ]);
    expect(readFileSync(join(p.cwd, 'src', 'a.txt'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(p.cwd, '.ll-loop-refactor.md'), 'utf8')).not.toContain('- [ ]');
  });

  it('ends at once in not_runnable when the test command is missing, without the agent', async () => {
    const p = repo({ 'agent.sh': AGENT }, SRC);
    const { result, states } = await runIn(
      p,
      builtin(p, 'incremental-refactor', { goal: GOAL, test_cmd: './no-such-tests' }),
    );
    expect(states).toEqual(['clean', 'baseline', 'triage', 'not_runnable']);
    expect(result).toMatchObject({ final_state: 'not_runnable', failure: true });
    expect(prompts(p)).toEqual([]);
    expect(existsSync(join(p.cwd, '.ll-loop-refactor.md'))).toBe(false);
  });
});

describe('dependency-upgrades', () => {
  // deps.txt is the manifest, latest.txt what the registry has; the "package manager" lists the
  // difference. The agent upgrades the first outdated dependency not named in a revert.
  const FILES = { 'deps.txt': 'left-pad 1\nlodash 4\n', 'latest.txt': 'left-pad 2\nlodash 5\n' };
  const SCRIPTS = {
    'outdated.sh': 'out=$(grep -v -x -F -f latest.txt deps.txt); [ -z "$out" ] || { echo "$out"; exit 1; }',
    'install.sh': 'echo installed >> installs',
    'agent.sh':
      'for d in $(grep -v -x -F -f latest.txt deps.txt | cut -d" " -f1); do case "$1" in *"+$d "*) continue ;; esac; sed -i "s/^$d .*/$(grep "^$d " latest.txt)/" deps.txt; exit 0; done',
  };
  const params = { outdated_cmd: './outdated.sh', test_cmd: './tests.sh', install_cmd: './install.sh' };

  it('upgrades one dependency per step, stages each step the tests pass, and ends in done', async () => {
    const p = repo({ ...SCRIPTS, 'tests.sh': 'exit 0' }, FILES);
    const { result, states } = await runIn(p, builtin(p, 'dependency-upgrades', params));
    const step = ['outdated', 'triage', 'budget', 'upgrade', 'verify', 'keep'];
    expect(states).toEqual(['clean', 'baseline', ...step, ...step, 'outdated', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    expect(prompts(p)[0]).toContain('Upgrade exactly ONE of them');
    expect(prompts(p)[0]).toContain('left-pad 1\nlodash 4');
    expect(git(p, 'diff', '--cached', '--name-status').trim()).toBe('M\tdeps.txt');
    expect(existsSync(join(p.cwd, 'installs'))).toBe(false);
  });

  it('reverts an upgrade that breaks the tests, reinstalls, leaves it alone, and stops at max_steps', async () => {
    const p = repo({ ...SCRIPTS, 'tests.sh': '! grep -q "lodash 5" deps.txt' }, FILES);
    const { result, states } = await runIn(p, builtin(p, 'dependency-upgrades', { ...params, max_steps: '3' }));
    expect(states.filter((s) => ['keep', 'revert', 'reinstall'].includes(s))).toEqual([
      'keep',
      'revert',
      'reinstall',
      'keep',
    ]);
    expect(result).toMatchObject({ final_state: 'step_limit', failure: false });
    expect(prompts(p)[2]).toContain('+lodash 5');
    expect(readFileSync(join(p.cwd, 'deps.txt'), 'utf8')).toBe('left-pad 2\nlodash 4\n');
    expect(readFileSync(join(p.cwd, 'installs'), 'utf8')).toBe('installed\n');
  });

  it('ends at once in not_runnable when the package manager is missing, without the agent', async () => {
    const p = repo({ ...SCRIPTS, 'tests.sh': 'exit 0' }, FILES);
    const { result, states } = await runIn(
      p,
      builtin(p, 'dependency-upgrades', { ...params, outdated_cmd: 'no-such-pm outdated' }),
    );
    expect(states).toEqual(['clean', 'baseline', 'outdated', 'triage', 'not_runnable']);
    expect(result).toMatchObject({ final_state: 'not_runnable', failure: true });
    expect(prompts(p)).toEqual([]);
  });
});

describe('docs-sync', () => {
  // A README whose link points at a moved file and whose example uses a renamed flag.
  const FILES = {
    'README.md': 'See [the guide](docs/usage.md#start).\nRun `tool --loud`.\n',
    'docs/guide.md': '# Guide\n',
  };
  const EXAMPLES = 'grep -q -e "tool --verbose" README.md || { echo "example 1: tool --loud: unknown flag"; exit 1; }';
  // Fixes what the prompt reports: the link, else the example.
  const AGENT =
    'case "$1" in *"broken link docs/usage.md"*) sed -i s#docs/usage.md#docs/guide.md# README.md ;; *) sed -i s/--loud/--verbose/ README.md ;; esac';

  it('finds the broken link with its own check, then the failing example; the agent fixes each; done', async () => {
    const p = repo({ 'examples.sh': EXAMPLES, 'agent.sh': AGENT }, FILES);
    const { result, states } = await runIn(p, builtin(p, 'docs-sync', { examples_cmd: './examples.sh' }));
    expect(states).toEqual([
      'links',
      'links_triage',
      'budget',
      'fix',
      'links',
      'examples',
      'examples_triage',
      'budget',
      'fix',
      'links',
      'examples',
      'done',
    ]);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const asked = prompts(p);
    expect(asked[0]).toContain('README.md: broken link docs/usage.md');
    expect(asked[1]).toContain('example 1: tool --loud: unknown flag');
    expect(readFileSync(join(p.cwd, 'README.md'), 'utf8')).toBe(
      'See [the guide](docs/guide.md#start).\nRun `tool --verbose`.\n',
    );
  });

  it('ends at once when the examples cannot run, or the link check cannot (no git repository), without the agent', async () => {
    const p = repo(
      { 'agent.sh': AGENT },
      { 'README.md': 'See [the guide](docs/guide.md).\n', 'docs/guide.md': '# Guide\n' },
    );
    const missing = await runIn(p, builtin(p, 'docs-sync', { examples_cmd: './no-such-examples' }));
    expect(missing.states).toEqual(['links', 'examples', 'examples_triage', 'examples_not_runnable']);
    expect(missing.result).toMatchObject({ final_state: 'examples_not_runnable', failure: true });
    const plain = sandbox({ 'agent.sh': AGENT }, { 'README.md': 'no links\n' });
    const noGit = await runIn(plain, builtin(plain, 'docs-sync', { examples_cmd: 'true' }));
    expect(noGit.states).toEqual(['links', 'links_triage', 'not_runnable']);
    expect([...prompts(p), ...prompts(plain)]).toEqual([]);
  });
});

describe('review-and-fix', () => {
  /**
   * The host CLI as judge and agent: asked with --json-schema, it answers the next line of
   * verdicts.jsonl in Claude Code's envelope (recording the question in judged/); else it is the
   * agent, recording the prompt and running ./agent.sh.
   */
  const HOST = [
    '#!/bin/sh',
    'judge=; prompt=',
    'for a in "$@"; do [ "$a" = --json-schema ] && judge=1; done',
    'while [ $# -gt 0 ]; do if [ "$1" = "-p" ]; then case "${2-}" in \'\'|-*) ;; *) prompt=$2; shift ;; esac; fi; shift; done',
    '[ -n "$prompt" ] || prompt=$(cat)',
    'if [ -n "$judge" ]; then',
    '  mkdir -p judged; n=$(ls judged | wc -l | tr -d " "); printf "%s" "$prompt" > "judged/$n.txt"',
    '  printf \'{"type":"result","subtype":"success","is_error":false,"structured_output":%s}\\n\' "$(sed -n "$((n + 1))p" verdicts.jsonl)"',
    '  exit 0',
    'fi',
    'mkdir -p prompts; printf "%s" "$prompt" > "prompts/$(ls prompts | wc -l | tr -d " ").txt"',
    'exec ./agent.sh "$prompt"',
  ].join('\n');

  /** A repository with src/calc.txt committed and a change to it in the working tree. */
  function change(verdicts: Array<Record<string, unknown>>, scripts: Record<string, string>): Sandbox {
    const p = repo(scripts, { 'src/calc.txt': 'add\n' });
    writeFileSync(join(p.bin, 'claude'), HOST);
    chmodSync(join(p.bin, 'claude'), 0o755);
    writeFileSync(join(p.cwd, 'verdicts.jsonl'), verdicts.map((v) => JSON.stringify(v)).join('\n') + '\n');
    writeFileSync(join(p.cwd, '.gitignore'), '*.sh\nbin/\ntools/\nprompts/\njudged/\nverdicts.jsonl\n');
    git(p, 'commit', '-qam', 'ignore the fakes');
    writeFileSync(join(p.cwd, 'src', 'calc.txt'), 'add\nsubtract\necho DEBUG\n');
    return p;
  }
  const judged = (p: Sandbox) =>
    [0, 1, 2]
      .map((n) => join(p.cwd, 'judged', `${n}.txt`))
      .filter(existsSync)
      .map((f) => readFileSync(f, 'utf8'));
  const NO = {
    verdict: 'no',
    confidence: 0.9,
    reason: 'src/calc.txt line 3: leftover debugging (echo DEBUG); remove it',
  };
  const YES = { verdict: 'yes', confidence: 0.9, reason: 'subtract is added cleanly' };

  it('the judge reviews the diff, the agent fixes its findings, the tests pass, the judge passes it: done', async () => {
    const p = change([NO, YES], { 'agent.sh': 'sed -i /DEBUG/d src/calc.txt', 'tests.sh': 'grep -q add src/calc.txt' });
    const { result, states } = await runIn(p, builtin(p, 'review-and-fix', { test_cmd: './tests.sh' }));
    const review = ['diff', 'has_changes', 'budget', 'review'];
    expect(states).toEqual(['baseline', ...review, 'fix', 'verify', ...review, 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
    const [first, second] = judged(p);
    expect(first).toContain('+echo DEBUG');
    expect(second).toContain('+subtract');
    expect(second).not.toContain('DEBUG');
    expect(prompts(p)).toHaveLength(1);
    expect(prompts(p)[0]).toContain('leftover debugging (echo DEBUG)');
    expect(readFileSync(join(p.cwd, 'src', 'calc.txt'), 'utf8')).toBe('add\nsubtract\n');
  });

  it('a judge that cannot tell hands over to a person (needs_person), without the agent', async () => {
    const p = change([{ verdict: 'cannot_judge', confidence: 0.8, reason: 'whether subtract may be negative' }], {
      'agent.sh': 'exit 0',
      'tests.sh': 'exit 0',
    });
    const { result, states } = await runIn(p, builtin(p, 'review-and-fix', { test_cmd: './tests.sh' }));
    expect(states).toEqual(['baseline', 'diff', 'has_changes', 'budget', 'review', 'needs_person']);
    expect(result).toMatchObject({ final_state: 'needs_person', failure: true });
    expect(prompts(p)).toEqual([]);
  });

  it('ends at once in tests_not_runnable when the test command is missing, without the judge or the agent', async () => {
    const p = change([NO, YES], { 'agent.sh': 'exit 0' });
    const { result, states } = await runIn(p, builtin(p, 'review-and-fix', { test_cmd: './no-such-tests' }));
    expect(states).toEqual(['baseline', 'tests_triage', 'tests_not_runnable']);
    expect(result).toMatchObject({ final_state: 'tests_not_runnable', failure: true });
    expect([...judged(p), ...prompts(p)]).toEqual([]);
  });
});

/**
 * `prepatch_check:` on a real workflow, in a git checkout: a check state whose gate passes is run
 * again on the checkout's commit with the current tests. A state that claims a patch but changed
 * nothing, or whose test passes without the patch, does not pass the gate under `fail`; `warn`
 * records it; a real fix passes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop, toolEnv } from './harness.js';

afterAll(closeTemporal);

/** A git checkout whose `add` is wrong, with a test of it (`sh tests/check.sh`). */
function codebase(test: string) {
  const p = project();
  mkdirSync(join(p.cwd, 'tests'));
  writeFileSync(join(p.cwd, 'calc.sh'), 'echo $(( $1 - $2 ))\n');
  writeFileSync(join(p.cwd, 'tests', 'check.sh'), test);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: p.cwd, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(join(p.cwd, '.gitignore'), 'bin/\ntools/\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
  return p;
}

/** A test that exercises the bug, and one that does not (it passes with or without a fix). */
const REAL_TEST = '[ "$(sh calc.sh 2 2)" = 4 ]\n';
const EMPTY_TEST = '[ "$(sh calc.sh 2 0)" = 2 ]\n';
const FIX = { action: "sed -i 's/- \\$2/+ $2/' calc.sh" };
const CLAIM = { action: 'echo "patched calc.sh"' };

const fixLoop = (policy: string, implement: Record<string, unknown>) =>
  definition({
    name: 'checked-fix',
    initial: 'implement',
    states: {
      implement: { ...implement, next: 'verify' },
      verify: {
        action: 'sh tests/check.sh',
        prepatch_check: policy,
        on_yes: 'done',
        on_no: 'failed',
        on_error: 'not_patched',
      },
      done: { terminal: true },
      failed: { terminal: true, failure: true },
      not_patched: { terminal: true, failure: true },
    },
  });

const prepatchEvent = (events: Array<Record<string, unknown>>) => events.find((e) => e.event === 'prepatch_check');

describe('prepatch_check', () => {
  it('fail: a state that claims a patch but changed nothing does not pass the gate', async () => {
    const p = codebase(EMPTY_TEST);
    const run = await runLoop(fixLoop('fail', CLAIM), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result).toMatchObject({ final_state: 'not_patched', failure: true });
    expect(prepatchEvent(run.events)).toMatchObject({
      state: 'verify',
      policy: 'fail',
      outcome: 'flagged',
      message: expect.stringContaining('no patch was applied'),
    });
    expect(run.events.find((e) => e.event === 'action_error')).toMatchObject({
      error: expect.stringContaining('prepatch_check: fail: no patch was applied'),
    });
  });

  it('fail: a patch whose test passes without it does not pass the gate', async () => {
    const p = codebase(EMPTY_TEST);
    const run = await runLoop(fixLoop('fail', FIX), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result).toMatchObject({ final_state: 'not_patched', failure: true });
    expect(prepatchEvent(run.events)).toMatchObject({
      outcome: 'flagged',
      message: expect.stringContaining('the check passes without the patch too'),
    });
  });

  it('fail: a real fix, proven by a test that fails without it, passes', async () => {
    const p = codebase(REAL_TEST);
    const run = await runLoop(fixLoop('fail', FIX), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(prepatchEvent(run.events)).toMatchObject({ outcome: 'clean' });
    // The scratch worktree is gone.
    expect(execFileSync('git', ['worktree', 'list'], { cwd: p.cwd, encoding: 'utf8' }).trim().split('\n')).toHaveLength(
      1,
    );
  });

  it('warn: the unpatched pass is recorded and stands', async () => {
    const p = codebase(EMPTY_TEST);
    const run = await runLoop(fixLoop('warn', CLAIM), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(prepatchEvent(run.events)).toMatchObject({ policy: 'warn', outcome: 'flagged' });
  });
});

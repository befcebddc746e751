/**
 * The worker's pre-patch run (activities/prepatch.ts) on a real git checkout, its command a
 * function: the report for a checkout without a patch, with one, and that a cancellation during
 * the second run ends the call (it is not turned into a report) and leaves no worktree behind.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelledFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { prepatchAction } from '../../activities/prepatch.js';
import type { ActionResult, RunActionInput } from '../../fsm/types.js';

function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'll-prepatch-unit-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(join(dir, 'calc.sh'), 'echo 1\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
  return dir;
}

const input = (cwd: string): RunActionInput => ({
  instanceId: 'r',
  state: 'verify',
  step: 1,
  kind: 'shell',
  cwd,
  timeout_s: 60,
  prepatch_check: 'fail',
});
const passed: ActionResult = { output: '', stderr: '', exit_code: 0, duration_ms: 5 };
const worktrees = (cwd: string) =>
  execFileSync('git', ['worktree', 'list'], { cwd, encoding: 'utf8' }).trim().split('\n').length;

describe('the pre-patch run', () => {
  it('reports a checkout without a patch without running the check again', async () => {
    const cwd = checkout();
    const cwds: string[] = [];
    const result = await prepatchAction(async (i) => (cwds.push(i.cwd), passed))(input(cwd));
    expect(result.prepatch).toEqual({ applied: false });
    expect(cwds).toEqual([cwd]);
  });

  it('runs the check again in a worktree of HEAD, without the tamper guard, and removes it', async () => {
    const cwd = checkout();
    writeFileSync(join(cwd, 'calc.sh'), 'echo 2\n');
    const seen: RunActionInput[] = [];
    const run = async (i: RunActionInput) => (seen.push(i), seen.length === 1 ? passed : { ...passed, exit_code: 1 });
    const result = await prepatchAction(run)({ ...input(cwd), tamper_guard: 'fail' });
    expect(result.prepatch).toMatchObject({ applied: true, exit_code: 1 });
    expect(seen[1]!.cwd).not.toBe(cwd);
    expect(seen[1]).not.toHaveProperty('prepatch_check');
    expect(seen[1]).not.toHaveProperty('tamper_guard');
    expect(worktrees(cwd)).toBe(1);
  });

  it('a cancellation during the second run ends the call and leaves no worktree', async () => {
    const cwd = checkout();
    writeFileSync(join(cwd, 'calc.sh'), 'echo 2\n');
    let calls = 0;
    const run = async (): Promise<ActionResult> => {
      calls += 1;
      if (calls === 1) return passed;
      throw new CancelledFailure('activity cancelled');
    };
    await expect(prepatchAction(run)(input(cwd))).rejects.toBeInstanceOf(CancelledFailure);
    expect(worktrees(cwd)).toBe(1);
  });
});

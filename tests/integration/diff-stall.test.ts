/**
 * diff_stall on the real server: the worker takes `git diff --stat` of the state's scope after
 * each pass (an activity), the core compares; a state that changes nothing for max_stall passes
 * routes `no`. Outside a repository, or without git, the verdict is `error` with the reason.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDiffStat } from '../../activities/diff-stat.js';
import { closeTemporal, definition, project, runLoop } from './harness.js';

afterAll(closeTemporal);

/** Appends a line to src/a.txt on its first two runs, then changes nothing (its counter is untracked). */
const WORK =
  'n=$(cat .count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > .count; if [ "$n" -le 2 ]; then echo "change $n" >> src/a.txt; fi';

function gitRepo(cwd: string): void {
  const git = (...args: string[]): void =>
    void execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
      cwd,
      stdio: 'ignore',
    });
  mkdirSync(join(cwd, 'src'));
  writeFileSync(join(cwd, 'src', 'a.txt'), 'start\n');
  writeFileSync(join(cwd, 'notes.txt'), 'outside the scope\n');
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'start');
}

const stallLoop = (action: string) =>
  definition({
    name: 'stall',
    description: 'stops when the work stops changing files',
    initial: 'work',
    max_iterations: 10,
    states: {
      work: {
        action,
        evaluate: { type: 'diff_stall', scope: ['src/'], max_stall: 2 },
        on_yes: 'work',
        on_no: 'stuck',
        on_error: 'broken',
      },
      stuck: { terminal: true, failure: true },
      broken: { terminal: true, failure: true },
    },
  });

describe('diff_stall on the real server', () => {
  it('routes no after max_stall passes that changed nothing in the scope', async () => {
    const p = project();
    gitRepo(p.cwd);
    // A change outside the scope does not count as progress.
    const run = await runLoop(stallLoop(`${WORK}; echo "$n" >> notes.txt`), { cwd: p.cwd });
    const evaluations = run.events.filter((e) => e.event === 'evaluate');
    expect(evaluations.map((e) => [e.type, e.verdict, e.details])).toEqual([
      ['diff_stall', 'yes', { stall_count: 0, max_stall: 2, diff_changed: true }],
      ['diff_stall', 'yes', { stall_count: 0, max_stall: 2, diff_changed: true }],
      ['diff_stall', 'yes', { stall_count: 1, max_stall: 2, diff_changed: false }],
      ['diff_stall', 'no', { stall_count: 2, max_stall: 2, diff_changed: false }],
    ]);
    expect(run.result).toMatchObject({ final_state: 'stuck', iterations: 4 });
    // The memory is the run's: it is in the final snapshot (so it rides continue-as-new).
    expect(run.snapshot?.diffStats?.work?.stall_count).toBe(2);
    expect(run.snapshot?.diffStats?.work?.stat).toMatch(/src\/a\.txt \| 2 \+\+/);
  });

  it('gives error, routed, when the directory is not a git repository', async () => {
    const p = project();
    const run = await runLoop(stallLoop('true'), { cwd: p.cwd });
    const evaluation = run.events.find((e) => e.event === 'evaluate');
    expect(evaluation).toMatchObject({ type: 'diff_stall', verdict: 'error' });
    expect((evaluation?.details as { error: string }).error).toMatch(
      /is not inside a git repository: run git init there/,
    );
    expect(run.result.final_state).toBe('broken');
  });

  it('answers error, not a throw, when git is missing', async () => {
    const reply = await makeDiffStat({ git: '/nonexistent/git' })({ cwd: '/tmp', state: 'work', scope: [] });
    expect(reply).toEqual({
      error: expect.stringMatching(/^diff_stall: git is not installed .*install git on the worker's machine/),
    });
  });
});

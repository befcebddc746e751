import { describe, expect, it } from 'vitest';
import { compareDiffStall, type DiffStallMemory } from '../../fsm/evaluators/diff-stall.js';
import { simulate } from '../../fsm/tools/simulate.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

const STAT = ' src/a.ts | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n';

describe('compareDiffStall (seed 001 table)', () => {
  it.each<[string, number, DiffStallMemory | undefined, string, string, Record<string, unknown>]>([
    ['first call, no prior snapshot', 1, undefined, STAT, 'yes', { stall_count: 0, max_stall: 1, diff_changed: true }],
    ['first call on a clean tree', 1, undefined, '', 'yes', { stall_count: 0, max_stall: 1, diff_changed: true }],
    [
      'diff changed since the last pass',
      1,
      { stat: '', stall_count: 0 },
      STAT,
      'yes',
      { stall_count: 0, max_stall: 1, diff_changed: true },
    ],
    [
      'a change resets the stall count',
      3,
      { stat: '', stall_count: 2 },
      STAT,
      'yes',
      { stall_count: 0, max_stall: 3, diff_changed: true },
    ],
    [
      'unchanged, stall count below max_stall',
      2,
      { stat: STAT, stall_count: 0 },
      STAT,
      'yes',
      { stall_count: 1, max_stall: 2, diff_changed: false },
    ],
    [
      'unchanged, stall count reaches max_stall',
      2,
      { stat: STAT, stall_count: 1 },
      STAT,
      'no',
      { stall_count: 2, max_stall: 2, diff_changed: false },
    ],
    [
      'unchanged once with the default max_stall 1',
      1,
      { stat: STAT, stall_count: 0 },
      STAT,
      'no',
      { stall_count: 1, max_stall: 1, diff_changed: false },
    ],
  ])('%s', (_label, maxStall, previous, stat, verdict, details) => {
    const { result, memory } = compareDiffStall(maxStall, previous, stat);
    expect(result).toEqual({ verdict, details });
    expect(memory).toEqual({ stat, stall_count: details.stall_count });
  });
});

describe('diff_stall in a run', () => {
  const fix = (evaluate: Record<string, unknown>) =>
    def(
      loop(
        {
          fix: {
            action: 'make fix',
            evaluate: { type: 'diff_stall', ...evaluate },
            on_yes: 'fix',
            on_no: 'stuck',
            on_error: 'broken',
          },
          stuck: { terminal: true },
          broken: { terminal: true },
        },
        { max_iterations: 20 },
      ),
    );

  it('asks the worker for the scope, keeps the memory in the snapshot, and routes no after max_stall unchanged passes', () => {
    const run = drive(fix({ scope: ['src/', 'tests/'], max_stall: 2 }), { diffs: { fix: ['a', 'b', 'b', 'b'] } });
    const asks = run.commands.filter((c) => c.type === 'diff_stat');
    expect(asks[0]).toEqual({ type: 'diff_stat', input: { state: 'fix', scope: ['src/', 'tests/'] } });
    expect(
      eventsNamed(run, 'evaluate').map((e) => [e.verdict, (e.details as { stall_count: number }).stall_count]),
    ).toEqual([
      ['yes', 0],
      ['yes', 0],
      ['yes', 1],
      ['no', 2],
    ]);
    expect(run.result.final_state).toBe('stuck');
    // While git runs, the snapshot holds the action result; the memory is part of the snapshot.
    const waiting = run.snapshots.find((s) => s.status === 'running' && s.phase === 'git_diff');
    expect(waiting).toMatchObject({ pending: { exit_code: 0 } });
    expect(run.final.diffStats).toEqual({ fix: { stat: 'b', stall_count: 2 } });
  });

  it('the whole repository when scope is absent; the worker error is the error verdict', () => {
    const run = drive(fix({}), {
      diffs: { fix: [{ error: 'diff_stall: /tmp/x is not inside a git repository: run git init there' }] },
    });
    expect(run.commands.find((c) => c.type === 'diff_stat')).toEqual({
      type: 'diff_stat',
      input: { state: 'fix', scope: [] },
    });
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({
      type: 'diff_stall',
      verdict: 'error',
      details: { error: expect.stringMatching(/not inside a git repository/), max_stall: 1 },
    });
    expect(run.result.final_state).toBe('broken');
  });

  it('is a valid evaluator (seed 001 tier 1), and max_stall must be a positive integer', () => {
    expect(fix({ scope: ['src/'], max_stall: 2 }).states.fix?.evaluate).toEqual({
      type: 'diff_stall',
      scope: ['src/'],
      max_stall: 2,
    });
    const bad = validateLoop(
      loop({ fix: { action: 'make', evaluate: { type: 'diff_stall', max_stall: 0 }, on_yes: 'done', on_no: 'done' } }),
    );
    expect(bad.definition).toBeUndefined();
    expect(bad.diagnostics[0]).toMatchObject({ path: ['states', 'fix', 'evaluate', 'max_stall'] });
  });

  it('simulates: its fail verdict is no', () => {
    const trace = simulate(fix({}), 'all-fail', 10);
    expect(trace.outcome?.final_state).toBe('stuck');
  });
});

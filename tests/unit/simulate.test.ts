/**
 * `ll-loop simulate`: the four scenarios on bundled loops give the traces the engine would take,
 * with limits, retries, sub-loops and maintain mode from `transition()` itself. Nothing runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simulate } from '../../fsm/tools/simulate.js';
import { runCliInProcess } from '../support/cli.js';
import { def, loop } from './helpers.js';

interface Out {
  loop: string;
  scenario: string;
  steps: Array<{
    step: number;
    iteration: number;
    state: string;
    evaluator?: string;
    verdict?: string;
    to?: string;
    retries?: number;
  }>;
  outcome?: { terminated_by: string; final_state: string; failure: boolean; iterations: number; error?: string };
  truncated: boolean;
  exit_code?: number;
}

const dir = mkdtempSync(join(tmpdir(), 'll-simulate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sim(...argv: string[]): Promise<Out> {
  const r = await runCliInProcess(['simulate', ...argv, '--json'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Out;
}

/** state:verdict>next, one per step ("-" where there is none). */
const trace = (o: Out) => o.steps.map((s) => `${s.state}:${s.verdict ?? '-'}>${s.to ?? '-'}`);

describe('bundled loop reduce-errors (convergence: pass = target, fail = progress)', () => {
  it('all-pass: the first measurement reaches the target', async () => {
    const o = await sim('reduce-errors', '--scenario', 'all-pass');
    expect(trace(o)).toEqual(['measure:target>done', 'done:->-']);
    expect(o.steps[0]).toMatchObject({ step: 1, iteration: 1, evaluator: 'convergence' });
    expect(o.outcome).toEqual({ terminated_by: 'terminal', final_state: 'done', failure: false, iterations: 1 });
    expect(o.exit_code).toBe(0);
  });

  it('all-fail: measure → fix until max_iterations (20 passes), exit 3', async () => {
    const o = await sim('reduce-errors', '--scenario', 'all-fail');
    expect(trace(o)).toEqual(Array.from({ length: 20 }, () => ['measure:progress>fix', 'fix:->measure']).flat());
    expect(o.steps.at(-1)).toMatchObject({ step: 40, iteration: 20 });
    expect(o.outcome).toEqual({
      terminated_by: 'max_iterations',
      final_state: 'measure',
      failure: false,
      iterations: 20,
    });
    expect(o.exit_code).toBe(3);
  });

  it('first-fail: one fix, then the target', async () => {
    const o = await sim('reduce-errors', '--scenario', 'first-fail');
    expect(trace(o)).toEqual(['measure:progress>fix', 'fix:->measure', 'measure:target>done', 'done:->-']);
    expect(o.outcome).toMatchObject({ final_state: 'done', iterations: 2 });
  });

  it('alternating starts with a pass', async () => {
    expect(trace(await sim('reduce-errors', '--scenario', 'alternating'))).toEqual(['measure:target>done', 'done:->-']);
  });
});

describe('bundled loop test-until-pass (exit_code and triage states; the budget and triage are judged for real)', () => {
  it.each([
    ['all-pass', ['test:yes>done', 'done:->-'], 'done', 0],
    [
      'all-fail',
      [
        ...Array.from({ length: 5 }, () => [
          'test:no>triage',
          'triage:no>budget',
          'budget:yes>fix',
          'fix:->test',
        ]).flat(),
        ...['test:no>triage', 'triage:no>budget', 'budget:no>gave_up', 'gave_up:->-'],
      ],
      'gave_up',
      2,
    ],
    [
      'first-fail',
      ['test:no>triage', 'triage:no>budget', 'budget:yes>fix', 'fix:->test', 'test:yes>done', 'done:->-'],
      'done',
      0,
    ],
    ['alternating', ['test:yes>done', 'done:->-'], 'done', 0],
  ])('%s', async (scenario, expected, final, exit) => {
    const o = await sim('test-until-pass', '--scenario', scenario);
    expect(trace(o)).toEqual(expected);
    expect(o.outcome?.final_state).toBe(final);
    expect(o.exit_code).toBe(exit);
  });
});

describe('the engine decides, not the simulator', () => {
  it('alternating over a check/fix cycle; retries on a failing exit are counted', () => {
    const d = def(
      loop({
        check: { action: 'make test', retry: { attempts: 3, backoff: 5 }, on_yes: 'done', on_no: 'fix' },
        fix: { action: 'Fix it', action_type: 'prompt', next: 'check' },
      }),
    );
    const s = simulate(d, 'first-fail', 100);
    expect(s.steps.map((x) => [x.state, x.verdict, x.to, x.retries])).toEqual([
      ['check', 'no', 'fix', 2],
      ['fix', undefined, 'check', undefined],
      ['check', 'yes', 'done', undefined],
      ['done', undefined, undefined, undefined],
    ]);
  });

  it('a check of counters, parameters and exit codes is judged for real; a check of output takes the scenario', () => {
    const d = def(
      loop(
        {
          check: { action: 'make test', capture: 'out', on_yes: 'done', on_no: 'count' },
          // reads printed output: nothing printed it, so the scenario decides (all-fail: no)
          count: {
            evaluate: { type: 'output_numeric', source: '${captured.out.output}', operator: 'eq', target: 0 },
            on_yes: 'done',
            on_no: 'budget',
          },
          budget: {
            evaluate: { type: 'output_numeric', source: '${state.iteration}', operator: 'le', target: '${context.n}' },
            on_yes: 'fix',
            on_no: 'failed',
          },
          fix: { action: 'Fix it', action_type: 'prompt', next: 'check' },
          failed: { terminal: true, failure: true },
        },
        { context: { n: 2 } },
      ),
    );
    const s = simulate(d, 'all-fail', 100);
    expect(s.steps.filter((x) => x.state === 'budget').map((x) => [x.iteration, x.evaluator, x.verdict])).toEqual([
      [1, 'output_numeric', 'yes'],
      [2, 'output_numeric', 'yes'],
      [3, 'output_numeric', 'no'],
    ]);
    expect(s.steps.filter((x) => x.state === 'count').every((x) => x.verdict === 'no')).toBe(true);
    expect(s.outcome).toMatchObject({ final_state: 'failed', iterations: 3 });
  });

  it("a verdict the state does not route ends the run with the engine's error", () => {
    const d = def(
      loop({
        measure: { action: 'count', evaluate: { type: 'convergence', target: 0 }, on_target: 'done', on_stall: 'done' },
      }),
    );
    const s = simulate(d, 'all-fail', 100);
    expect(s.outcome).toMatchObject({ terminated_by: 'error', final_state: 'measure' });
    expect(s.outcome?.error).toMatch(/no valid transition from state "measure" for verdict "progress"/);
  });

  it('a sub-loop state passes or fails as its child would end', () => {
    const d = def(
      loop({
        child: { loop: 'other', on_success: 'done', on_failure: 'failed' },
        failed: { terminal: true, failure: true },
      }),
    );
    expect(simulate(d, 'all-pass', 100).steps.map((x) => `${x.state}:${x.verdict}>${x.to}`)).toEqual([
      'child:yes>done',
      'done:undefined>undefined',
    ]);
    expect(simulate(d, 'all-fail', 100).outcome).toMatchObject({ final_state: 'failed', failure: true });
  });

  it('maintain mode never ends: --max-steps bounds the trace', () => {
    const d = def(
      loop({ check: { action: 'ok', on_yes: 'done', on_no: 'check' } }, { maintain: true, maintain_delay: 60 }),
    );
    const s = simulate(d, 'all-pass', 7);
    expect(s.truncated).toBe(true);
    expect(s.outcome).toBeUndefined();
    expect(s.steps.map((x) => x.state)).toEqual(['check', 'done', 'check', 'done', 'check', 'done', 'check']);
  });
});

describe('the command', () => {
  mkdirSync(join(dir, '.loops'), { recursive: true });
  writeFileSync(join(dir, '.loops', 'bad.yaml'), 'name: bad\ninitial: nowhere\nstates:\n  done: {terminal: true}\n');

  it('prints a table and how the run would end', async () => {
    const r = await runCliInProcess(['simulate', 'reduce-errors', '--scenario', 'first-fail'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'Simulation of reduce-errors: the first check fails, every later one passes (--scenario first-fail); nothing runs.',
    );
    expect(r.stdout).toMatch(/^1\s+1\s+measure\s+convergence\s+progress\s+→ fix$/m);
    expect(r.stdout).toMatch(/^4\s+2\s+done\s+-\s+-\s+\(end\)$/m);
    expect(r.stdout).toContain(
      'The run reaches the terminal "done" after 2 passes and 4 steps (ll-loop run would exit 0).',
    );
  });

  it('--exit-code 127: a check that cannot run takes the triage for real, and the header says so', async () => {
    const o = await sim('test-until-pass', '--scenario', 'first-fail', '--exit-code', '127');
    expect(trace(o)).toEqual(['test:no>triage', 'triage:yes>not_runnable', 'not_runnable:->-']);
    expect(o.exit_code).toBe(2);
    const r = await runCliInProcess(['simulate', 'test-until-pass', '--scenario', 'all-fail', '--exit-code', '127'], {
      cwd: dir,
    });
    expect(r.stdout).toContain('every check fails, a failing command exiting 127 (--scenario all-fail)');
    const bad = await runCliInProcess(['simulate', 'test-until-pass', '--exit-code', '0'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--exit-code "0" is not an exit code a failing command gives (1 to 255)');
  });

  it('--max-steps stops the trace and says so', async () => {
    const r = await runCliInProcess(['simulate', 'reduce-errors', '--scenario', 'all-fail', '--max-steps', '3'], {
      cwd: dir,
    });
    expect(r.stdout).toMatch(/^3\s+2\s+measure/m);
    expect(r.stdout).not.toMatch(/^4\s/m);
    expect(r.stdout).toContain('Stopped after 3 steps (--max-steps)');
  });

  it('bad arguments and invalid loops are usage errors (exit 1)', async () => {
    const bad = await runCliInProcess(['simulate', 'reduce-errors', '--scenario', 'all-fails'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('error: unknown scenario "all-fails" (did you mean "all-fail"?)');
    expect((await runCliInProcess(['simulate', 'reduce-errors', '--max-steps', '0'], { cwd: dir })).code).toBe(1);
    const invalid = await runCliInProcess(['simulate', 'bad'], { cwd: dir });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/bad\.yaml:2:1: error: initial state "nowhere" is not defined/);
    expect(invalid.stderr).toMatch(/error: .*bad\.yaml is not a valid loop; nothing was simulated/);
  });
});

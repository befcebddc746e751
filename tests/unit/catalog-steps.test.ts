/**
 * The built-ins flaky-tests, incremental-refactor, dependency-upgrades, docs-sync, review-and-fix,
 * fan-out-files and file-task: their gates (which agent state is guarded and
 * how, silent actions limited, scope declared), how incremental-refactor takes its goal, and the
 * paths `simulate` gives. Their runs on the real server with a scripted agent are in
 * tests/integration/catalog-steps.test.ts and catalog-fanout.test.ts.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BUILTIN_LOOPS_DIR } from '../../loader/catalog.js';
import { loadLoop } from '../../loader/load.js';
import { simulate, type Scenario, type SimulateOptions } from '../../fsm/tools/simulate.js';
import { runCliInProcess } from '../support/cli.js';

const cwd = mkdtempSync(join(tmpdir(), 'll-loop-catalog-steps-'));

function trace(
  name: string,
  scenario: Scenario,
  context: Record<string, string> = {},
  options: SimulateOptions = {},
): string[] {
  const loaded = loadLoop(name, cwd, { context, requireParameters: true });
  if (!loaded.definition) throw new Error(JSON.stringify(loaded.diagnostics));
  return simulate(loaded.definition, scenario, 200, options).steps.map(
    (x) => `${x.state}:${x.verdict ?? '-'}>${x.to ?? '-'}`,
  );
}

const raw = (name: string) =>
  parse(readFileSync(join(BUILTIN_LOOPS_DIR, `${name}.yaml`), 'utf8'), { version: '1.2' }) as {
    scope?: string[];
    default_idle_timeout?: number;
    states: Record<string, { action_type?: string; tamper_guard?: string; terminal?: boolean; failure?: boolean }>;
  };

describe.each([
  // flaky-tests' job is editing tests (a fix in the test, a quarantine): a change is recorded.
  ['flaky-tests', ['fix'], 'warn'],
  ['incremental-refactor', ['plan', 'step'], 'fail'],
  ['dependency-upgrades', ['upgrade'], 'fail'],
  ['docs-sync', ['fix'], 'fail'],
  ['review-and-fix', ['fix', 'repair'], 'fail'],
  ['file-task', ['work'], 'fail'],
])('built-in %s', (name, editing, guard) => {
  it(`guards every state where the agent acts (${editing.join(', ')}: ${guard}), limits silent actions, declares its scope`, () => {
    const loop = raw(name);
    const prompts = Object.entries(loop.states).filter(([, s]) => s.action_type === 'prompt');
    expect(prompts.map(([n]) => n)).toEqual(editing);
    for (const [, s] of prompts) expect(s.tamper_guard).toBe(guard);
    expect(loop.default_idle_timeout).toBe(900);
    expect(loop.scope).toEqual(['.']);
  });
});

describe('flaky-tests', () => {
  it('simulate: tests that pass every run end in done without the agent', () => {
    expect(trace('flaky-tests', 'all-pass')).toEqual(['probe:yes>rerun', 'rerun:yes>done', 'done:->-']);
  });

  it('simulate: tests failing on every run are broken, not flaky: fails_always, without the agent', () => {
    expect(trace('flaky-tests', 'all-fail')).toEqual([
      'probe:no>triage',
      'triage:no>rerun',
      'rerun:no>some_or_all',
      'some_or_all:no>fails_always',
      'fails_always:->-',
    ]);
  });

  it('simulate: a test command that cannot run ends at once in not_runnable', () => {
    expect(trace('flaky-tests', 'first-fail', {}, { failExitCode: 127 })).toEqual([
      'probe:no>triage',
      'triage:yes>not_runnable',
      'not_runnable:->-',
    ]);
  });

  it('simulate: failures on some runs go to the agent, whose fix must leave the report', () => {
    expect(trace('flaky-tests', 'alternating')).toEqual([
      'probe:yes>rerun',
      'rerun:no>some_or_all',
      'some_or_all:yes>budget',
      'budget:yes>fix',
      'fix:->reported',
      'reported:no>no_report',
      'no_report:->-',
    ]);
  });

  it('binds runs to an integer, and refuses a value that is not one', () => {
    expect(
      loadLoop('flaky-tests', cwd, { context: { runs: '10' }, requireParameters: true }).definition?.context.runs,
    ).toBe(10);
    const bad = loadLoop('flaky-tests', cwd, { context: { runs: 'often' }, requireParameters: true });
    expect(bad.definition).toBeUndefined();
    expect(bad.diagnostics.find((d) => d.severity === 'error')?.message).toBe(
      'parameter "runs" of loop "flaky-tests": expected an integer, got "often"',
    );
  });
});

describe('incremental-refactor', () => {
  it('takes the goal as the run input, and refuses to start without one', async () => {
    const loaded = loadLoop('incremental-refactor', cwd, { context: { goal: 'split a.ts' }, requireParameters: true });
    expect(loaded.definition?.input_key).toBe('goal');
    const r = await runCliInProcess(['run', 'incremental-refactor', '--dry-run'], { cwd });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'loop "incremental-refactor" needs "goal" (its input: ll-loop run incremental-refactor "<text>"): it is in required_inputs and was not given',
    );
  });

  it('simulate: a plan whose steps are all done ends in done', () => {
    expect(trace('incremental-refactor', 'all-pass', { goal: 'g' })).toEqual([
      'clean:yes>baseline',
      'baseline:yes>plan',
      'plan:->planned',
      'planned:yes>keep_plan',
      'keep_plan:->remaining',
      'remaining:yes>done',
      'done:->-',
    ]);
  });

  it('simulate: a dirty tree stops at once; a test command that cannot run stops before the agent', () => {
    expect(trace('incremental-refactor', 'all-fail', { goal: 'g' })).toEqual(['clean:no>dirty', 'dirty:->-']);
    expect(trace('incremental-refactor', 'alternating', { goal: 'g' }, { failExitCode: 127 })).toEqual([
      'clean:yes>baseline',
      'baseline:no>triage',
      'triage:yes>not_runnable',
      'not_runnable:->-',
    ]);
  });

  it('ends short of its goal as a failure: step_limit and every terminal but done are failure: true', () => {
    const terminals = Object.entries(raw('incremental-refactor').states).filter(([, s]) => s.terminal);
    expect(terminals.filter(([, s]) => s.failure !== true).map(([n]) => n)).toEqual(['done']);
    expect(terminals.map(([n]) => n)).toContain('step_limit');
  });
});

describe('dependency-upgrades', () => {
  it('simulate: a clean tree with nothing outdated ends in done without the agent; a dirty tree stops at once', () => {
    expect(trace('dependency-upgrades', 'all-pass')).toEqual([
      'clean:yes>baseline',
      'baseline:yes>outdated',
      'outdated:yes>done',
      'done:->-',
    ]);
    expect(trace('dependency-upgrades', 'all-fail')).toEqual(['clean:no>dirty', 'dirty:->-']);
  });

  it('simulate: a test command that cannot run ends in tests_not_runnable before the agent', () => {
    expect(trace('dependency-upgrades', 'alternating', {}, { failExitCode: 127 })).toEqual([
      'clean:yes>baseline',
      'baseline:no>tests_triage',
      'tests_triage:yes>tests_not_runnable',
      'tests_not_runnable:->-',
    ]);
  });
});

describe('docs-sync', () => {
  it('simulate: docs whose links resolve and examples run end in done without the agent', () => {
    expect(trace('docs-sync', 'all-pass')).toEqual(['links:yes>examples', 'examples:yes>done', 'done:->-']);
  });

  it('simulate: a link check that cannot run ends in not_runnable; links still broken after every attempt end in gave_up', () => {
    expect(trace('docs-sync', 'first-fail', {}, { failExitCode: 127 })).toEqual([
      'links:no>links_triage',
      'links_triage:yes>not_runnable',
      'not_runnable:->-',
    ]);
    // The budget is judged for real: three fix attempts (max_fixes), then gave_up.
    expect(trace('docs-sync', 'all-fail')).toEqual([
      ...Array.from({ length: 3 }, () => [
        'links:no>links_triage',
        'links_triage:no>budget',
        'budget:yes>fix',
        'fix:->links',
      ]).flat(),
      ...['links:no>links_triage', 'links_triage:no>budget', 'budget:no>gave_up', 'gave_up:->-'],
    ]);
  });
});

describe('review-and-fix', () => {
  it('simulate: a change the judge passes ends in done; a test command that cannot run stops before the judge', () => {
    expect(trace('review-and-fix', 'all-pass')).toEqual([
      'baseline:yes>diff',
      'diff:yes>has_changes',
      'has_changes:yes>budget',
      'budget:yes>review',
      'review:yes>done',
      'done:->-',
    ]);
    expect(trace('review-and-fix', 'first-fail', {}, { failExitCode: 127 })).toEqual([
      'baseline:no>tests_triage',
      'tests_triage:yes>tests_not_runnable',
      'tests_not_runnable:->-',
    ]);
  });

  it('both judging states use the same llm_structured judge, may abstain, and route every verdict', () => {
    const def = loadLoop('review-and-fix', cwd, { requireParameters: true }).definition!;
    const review = def.states.review!;
    const last = def.states.last_review!;
    expect(review.evaluate).toMatchObject({ type: 'llm_structured', source: '${captured.diff.output}' });
    expect(last.evaluate).toEqual(review.evaluate);
    for (const s of [review, last]) {
      expect(s.cannot_judge).toBe(true);
      expect(s.route).toMatchObject({
        cannot_judge: 'needs_person',
        blocked: 'needs_person',
        error: 'judge_failed',
        yes: 'done',
      });
    }
    expect([review.route?.no, review.route?.partial]).toEqual(['fix', 'fix']);
    expect([last.route?.no, last.route?.partial]).toEqual(['gave_up', 'gave_up']);
  });
});

describe('fan-out-files', () => {
  it('fans the listed files out to file-task, one worktree each, passing each its file and the commands', () => {
    const def = loadLoop('fan-out-files', cwd, { context: { task: 't' }, requireParameters: true }).definition!;
    expect(def.states.fan_out?.parallel).toMatchObject({
      items_from: 'lines',
      loop: 'file-task',
      isolation: 'worktree',
      with: { task: '${context.task}', file: '${item}', test_cmd: '${context.test_cmd}' },
    });
    expect(def.states.fan_out).toMatchObject({ on_yes: 'done', on_partial: 'some_failed', on_no: 'none_done' });
  });

  it('simulate: tests that cannot run stop before the fan-out; every item done ends in done', () => {
    expect(trace('fan-out-files', 'all-pass', { task: 't' })).toEqual([
      'baseline:yes>list',
      'list:yes>fan_out',
      'fan_out:yes>done',
      'done:->-',
    ]);
    expect(trace('fan-out-files', 'first-fail', { task: 't' }, { failExitCode: 127 })).toEqual([
      'baseline:no>tests_triage',
      'tests_triage:yes>not_runnable',
      'not_runnable:->-',
    ]);
  });
});

describe('file-task', () => {
  it('needs the task and the file', () => {
    expect(loadLoop('file-task', cwd, { context: { task: 't' }, requireParameters: true }).definition).toBeUndefined();
    expect(
      loadLoop('file-task', cwd, { context: { task: 't', file: 'src/a.ts' }, requireParameters: true }).definition
        ?.input_key,
    ).toBe('task');
  });
});

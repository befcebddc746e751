/**
 * The task built-ins (general-task, dead-code) and bisect-regression: conventions beyond the catalog's (the agent's
 * code-editing state is guarded, silent actions are limited, scope is declared), how general-task
 * takes its task, and the paths `simulate` gives. Their runs on the real server with a scripted
 * agent are in tests/integration/catalog-tasks.test.ts.
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

const cwd = mkdtempSync(join(tmpdir(), 'll-loop-catalog-tasks-'));

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
    states: Record<string, { action_type?: string; tamper_guard?: string }>;
  };

describe.each([
  ['general-task', 'work'],
  ['dead-code', 'remove'],
])('built-in %s', (name, editing) => {
  it(`guards the state where the agent edits code (${editing}), limits silent actions, declares its scope`, () => {
    const loop = raw(name);
    expect(loop.states[editing]).toMatchObject({ action_type: 'prompt', tamper_guard: 'fail' });
    expect(loop.default_idle_timeout).toBeGreaterThan(0);
    expect(loop.scope).toEqual(['.']);
  });
});

describe('general-task', () => {
  it('takes the task as the run input, and refuses to start without one', async () => {
    const loaded = loadLoop('general-task', cwd, { context: { task: 'add a flag' }, requireParameters: true });
    expect(loaded.definition?.input_key).toBe('task');
    const r = await runCliInProcess(['run', 'general-task', '--dry-run'], { cwd });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'loop "general-task" needs "task" (its input: ll-loop run general-task "<text>"): it is in required_inputs and was not given',
    );
  });

  it('simulate: a definition that passes before any work is a failure, never done', () => {
    expect(trace('general-task', 'all-pass', { task: 't' })).toEqual([
      'baseline:yes>define',
      'define:->before_work',
      'before_work:yes>passes_before_work',
      'passes_before_work:->-',
    ]);
  });

  it('simulate: failing checks lead to work; a check still failing with no round left ends in gave_up', () => {
    const t = trace('general-task', 'all-fail', { task: 't', max_rounds: '2' });
    expect(t.slice(0, 5)).toEqual([
      'baseline:no>baseline_triage',
      'baseline_triage:no>define',
      'define:->before_work',
      'before_work:no>defined',
      'defined:no>work',
    ]);
    // The budget is judged for real: two rounds of work (max_rounds), then gave_up.
    expect(t.slice(5)).toEqual([
      ...['work:->check', 'check:no>still_defined', 'still_defined:no>budget', 'budget:yes>work'],
      ...['work:->check', 'check:no>still_defined', 'still_defined:no>budget', 'budget:no>gave_up'],
      'gave_up:->-',
    ]);
  });
});

describe('dead-code', () => {
  it('simulate: a clean tree whose finder finds nothing ends in done without the agent', () => {
    expect(trace('dead-code', 'all-pass')).toEqual([
      'clean:yes>baseline',
      'baseline:yes>find',
      'find:yes>done',
      'done:->-',
    ]);
  });

  it('simulate: a dirty tree stops at once', () => {
    expect(trace('dead-code', 'all-fail')).toEqual(['clean:no>dirty', 'dirty:->-']);
  });
});

describe('bisect-regression', () => {
  it('simulate: a first bad commit found → found; anything else → a failure terminal', () => {
    expect(trace('bisect-regression', 'all-pass')).toEqual(['bisect:yes>found', 'found:->-']);
    expect(trace('bisect-regression', 'all-fail')).toEqual(['bisect:no>outcome', 'outcome:error>failed', 'failed:->-']);
  });

  it('every terminal but found is a failure, and each failure resets a bisect that may be in progress', () => {
    const loop = raw('bisect-regression') as unknown as {
      states: Record<string, { terminal?: boolean; failure?: boolean; action?: string }>;
    };
    const terminals = Object.entries(loop.states).filter(([, s]) => s.terminal);
    expect(terminals.filter(([, s]) => !s.failure).map(([n]) => n)).toEqual(['found']);
    for (const [, s] of terminals.filter(([, t]) => t.failure)) expect(s.action).toMatch(/^git bisect reset /);
  });
});

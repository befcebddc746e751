/**
 * The gate built-ins (format, build, check-matrix, security-advisories, perf-guard): what an agent may touch
 * is guarded (`tamper_guard: fail` on every prompt state), a silent action has an idle limit, the
 * loop declares its scope, and `simulate` gives the paths the catalog documents: all checks pass
 * at once, every check fails until the budget is spent, the checker cannot run. Their runs on the
 * real server with a scripted agent are in tests/integration/catalog-gates.test.ts (perf-guard: catalog-perf).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { BUILTIN_LOOPS_DIR } from '../../loader/catalog.js';
import { loadLoop } from '../../loader/load.js';
import { simulate, type Scenario, type SimulateOptions } from '../../fsm/tools/simulate.js';

const GATES = ['build', 'check-matrix', 'format', 'security-advisories'];

const cwd = mkdtempSync(join(tmpdir(), 'll-loop-catalog-gates-'));

function trace(name: string, scenario: Scenario, options: SimulateOptions = {}): string[] {
  const loaded = loadLoop(name, cwd, { requireParameters: true });
  if (!loaded.definition) throw new Error(JSON.stringify(loaded.diagnostics));
  const s = simulate(loaded.definition, scenario, 200, options);
  return s.steps.map((x) => `${x.state}:${x.verdict ?? '-'}>${x.to ?? '-'}`);
}

interface RawState {
  action_type?: string;
  tamper_guard?: string;
  terminal?: boolean;
  failure?: boolean;
  evaluate?: { source?: string; pattern?: string };
  on_yes?: string;
}

describe.each(GATES)('built-in %s', (name) => {
  const raw = parse(readFileSync(join(BUILTIN_LOOPS_DIR, `${name}.yaml`), 'utf8'), { version: '1.2' }) as {
    scope?: string[];
    default_idle_timeout?: number;
    category?: string;
    labels?: string[];
    parameters: Record<string, { type: string }>;
    states: Record<string, RawState>;
  };

  it('guards every agent edit, limits silent actions, and declares its scope, category and labels', () => {
    const prompts = Object.entries(raw.states).filter(([, s]) => s.action_type === 'prompt');
    expect(prompts.length).toBeGreaterThan(0);
    for (const [state, s] of prompts) expect(s.tamper_guard, `${name}.${state}`).toBe('fail');
    expect(raw.default_idle_timeout).toBeGreaterThan(0);
    expect(raw.scope).toEqual(['.']);
    expect(raw.category).toBeTruthy();
    expect(raw.labels).toContain('agent');
    expect(raw.parameters.max_fixes?.type).toBe('integer');
  });

  it('sends every exit 126/127 of a command it runs to a failure terminal, before any agent call', () => {
    const triages = Object.values(raw.states).filter((s) => s.evaluate?.pattern === '^12[67]$');
    expect(triages.length).toBeGreaterThan(0);
    for (const t of triages) expect(raw.states[t.on_yes!]).toMatchObject({ terminal: true, failure: true });
  });
});

describe('simulate', () => {
  it.each([
    ['build', ['build:yes>done', 'done:->-']],
    ['format', ['check:yes>done', 'done:->-']],
    [
      'check-matrix',
      [
        'pin:yes>build',
        'build:yes>types',
        'types:yes>lint',
        'lint:yes>tests',
        'tests:yes>unchanged',
        'unchanged:yes>done',
        'done:->-',
      ],
    ],
    ['security-advisories', ['baseline:yes>audit', 'audit:yes>done', 'done:->-']],
  ])('%s: every check passes at once → done, no agent call', (name, expected) => {
    expect(trace(name, 'all-pass')).toEqual(expected);
  });

  it.each([
    // The budget is judged for real: five fix attempts (max_fixes), then gave_up.
    [
      'build',
      [
        ...Array.from({ length: 5 }, () => [
          'build:no>triage',
          'triage:no>budget',
          'budget:yes>fix',
          'fix:->build',
        ]).flat(),
        ...['build:no>triage', 'triage:no>budget', 'budget:no>gave_up', 'gave_up:->-'],
      ],
    ],
    [
      'format',
      [
        'check:no>triage',
        'triage:no>autofix',
        ...Array.from({ length: 2 }, () => [
          'autofix:->autofix_triage',
          'autofix_triage:no>recheck',
          'recheck:no>budget',
          'budget:yes>fix',
          'fix:->autofix',
        ]).flat(),
        ...['autofix:->autofix_triage', 'autofix_triage:no>recheck', 'recheck:no>budget', 'budget:no>gave_up'],
        'gave_up:->-',
      ],
    ],
    // The configuration pin is the first gate: a config_cmd that fails ends the run before any check.
    ['check-matrix', ['pin:no>config_not_runnable', 'config_not_runnable:->-']],
    ['security-advisories', ['baseline:no>tests_triage', 'tests_triage:no>tests_fail_before', 'tests_fail_before:->-']],
  ])('%s: everything fails → its failure terminal', (name, expected) => {
    expect(trace(name, 'all-fail')).toEqual(expected);
  });

  it.each([
    ['build', ['build:no>triage', 'triage:yes>not_runnable', 'not_runnable:->-']],
    ['format', ['check:no>triage', 'triage:yes>not_runnable', 'not_runnable:->-']],
    ['check-matrix', ['pin:no>config_not_runnable', 'config_not_runnable:->-']],
    [
      'security-advisories',
      ['baseline:no>tests_triage', 'tests_triage:yes>tests_not_runnable', 'tests_not_runnable:->-'],
    ],
  ])('%s: the first check cannot run (first-fail, exit 127) → not runnable, no agent call', (name, expected) => {
    expect(trace(name, 'first-fail', { failExitCode: 127 })).toEqual(expected);
  });

  it.each([
    ['build', ['build:no>triage', 'triage:no>budget', 'budget:yes>fix', 'fix:->build', 'build:yes>done', 'done:->-']],
    [
      'format',
      [
        'check:no>triage',
        'triage:no>autofix',
        'autofix:->autofix_triage',
        'autofix_triage:no>recheck',
        'recheck:yes>done',
        'done:->-',
      ],
    ],
  ])('%s: the first check fails and can run (first-fail) → one fix, then done', (name, expected) => {
    expect(trace(name, 'first-fail')).toEqual(expected);
  });

  it('check-matrix: a fix goes back to the first check, so done needs all four in one pass', () => {
    const loaded = loadLoop('check-matrix', cwd, { requireParameters: true });
    expect(loaded.definition?.states.fix?.next).toBe('build');
    // Passing tests lead to done only through the configuration's comparison.
    expect(loaded.definition?.states.tests?.route).toMatchObject({ yes: 'unchanged' });
    expect(loaded.definition?.states.unchanged).toMatchObject({ on_yes: 'done', on_no: 'weakened' });
  });
});

describe('perf-guard', () => {
  const limit = (figure: string, tolerance: string) => {
    const loaded = loadLoop('perf-guard', cwd, {
      context: { bench_cmd: `echo ${figure}`, tolerance },
      requireParameters: true,
    });
    // Outside a git repository nothing is stashed: the figure is the baseline.
    const r = spawnSync('bash', ['-c', String(loaded.definition?.context.baseline_cmd)], { cwd, encoding: 'utf8' });
    return { out: r.stdout.trim(), code: r.status };
  };

  it('allows the baseline plus the tolerance in percent, also for a negated higher-is-better figure', () => {
    expect(limit('200', '5').out).toBe('210');
    expect(limit('-200', '5').out).toBe('-190');
    expect(limit('0.5', '0').out).toBe('0.5');
    expect(limit('fast', '5')).toEqual({ out: '', code: 1 });
  });

  it('guards the fix and simulates: within the limit → done; still over it → fixes until the budget is spent', () => {
    const raw = parse(readFileSync(join(BUILTIN_LOOPS_DIR, 'perf-guard.yaml'), 'utf8'), { version: '1.2' }) as {
      states: Record<string, RawState>;
    };
    expect(raw.states.fix?.tamper_guard).toBe('fail');
    expect(trace('perf-guard', 'all-pass')).toEqual(['baseline:yes>measure', 'measure:yes>done', 'done:->-']);
    expect(trace('perf-guard', 'all-fail')).toEqual([
      'baseline:no>measure',
      'measure:no>budget',
      'budget:yes>fix',
      ...Array.from({ length: 2 }, () => [
        'fix:->verify',
        'verify:no>tests_triage',
        'tests_triage:no>budget',
        'budget:yes>fix',
      ]).flat(),
      ...['fix:->verify', 'verify:no>tests_triage', 'tests_triage:no>budget', 'budget:no>gave_up'],
      'gave_up:->-',
    ]);
  });
});

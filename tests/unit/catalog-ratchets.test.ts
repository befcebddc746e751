/**
 * The built-ins code-run-gate, fix-bug, stricter-types, migrate-usage and complexity-ratchet:
 * which agent states are guarded and how (fix-bug's test-writing step is not; its fix is, and
 * its check must fail on the last commit), silent actions limited, scope declared, their inputs,
 * and the paths `simulate` gives. Their runs on the real server with a scripted agent are in
 * tests/integration/catalog-oracles.test.ts and catalog-ratchets.test.ts.
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

const cwd = mkdtempSync(join(tmpdir(), 'll-loop-catalog-ratchets-'));

const INPUTS: Record<string, Record<string, string>> = {
  'fix-bug': { bug: 'b' },
  'migrate-usage': { migration: 'm', pattern: 'p' },
};

function trace(name: string, scenario: Scenario, options: SimulateOptions = {}): string[] {
  const loaded = loadLoop(name, cwd, { context: INPUTS[name] ?? {}, requireParameters: true });
  if (!loaded.definition) throw new Error(JSON.stringify(loaded.diagnostics));
  return simulate(loaded.definition, scenario, 200, options).steps.map(
    (x) => `${x.state}:${x.verdict ?? '-'}>${x.to ?? '-'}`,
  );
}

interface RawState {
  action_type?: string;
  tamper_guard?: string;
  prepatch_check?: string;
  terminal?: boolean;
  failure?: boolean;
}
const raw = (name: string) =>
  parse(readFileSync(join(BUILTIN_LOOPS_DIR, `${name}.yaml`), 'utf8'), { version: '1.2' }) as {
    scope?: string[];
    default_idle_timeout?: number;
    labels?: string[];
    states: Record<string, RawState>;
  };

const RATCHETS = ['stricter-types', 'migrate-usage', 'complexity-ratchet'];

/** Rows of `simulate` traces: the loop, and each step as `state:verdict>next`. */
type Traces = Array<[string, string[]]>;
const ratchets = (expected: string[]): Traces => RATCHETS.map((name) => [name, expected]);

describe.each([
  ['code-run-gate', { fix: 'fail' }],
  ['fix-bug', { reproduce: 'allow', fix: 'fail' }],
  ['stricter-types', { step: 'fail' }],
  ['migrate-usage', { step: 'fail' }],
  ['complexity-ratchet', { step: 'fail' }],
])('built-in %s', (name, guards) => {
  it(`guards its agent states (${JSON.stringify(guards)}), limits silent actions, declares its scope`, () => {
    const loop = raw(name);
    const prompts = Object.entries(loop.states).filter(([, s]) => s.action_type === 'prompt');
    expect(Object.fromEntries(prompts.map(([n, s]) => [n, s.tamper_guard]))).toEqual(guards);
    expect(loop.default_idle_timeout).toBe(900);
    expect(loop.scope).toEqual(['.']);
    expect(loop.labels).toContain('agent');
  });
});

describe('simulate', () => {
  it.each<[string, string[]]>([
    ['code-run-gate', ['fingerprint:yes>run', 'run:yes>done', 'done:->-']],
    [
      'fix-bug',
      [
        'clean:yes>baseline',
        'baseline:yes>reproduce',
        'reproduce:->reproduced',
        'reproduced:yes>not_reproduced',
        'not_reproduced:->-',
      ],
    ],
    ...ratchets(['clean:yes>baseline', 'baseline:yes>measure', 'measure:yes>done', 'done:->-']),
  ])('%s: every check passes at once', (name, expected) => {
    expect(trace(name, 'all-pass')).toEqual(expected);
  });

  it.each<[string, string[]]>([
    ['code-run-gate', ['fingerprint:no>no_oracle', 'no_oracle:->-']],
    ['fix-bug', ['clean:no>dirty', 'dirty:->-']],
    ...ratchets(['clean:no>dirty', 'dirty:->-']),
  ])('%s: everything fails → a failure terminal before any agent call', (name, expected) => {
    expect(trace(name, 'all-fail')).toEqual(expected);
  });

  it.each<[string, string[]]>([
    ['code-run-gate', ['fingerprint:yes>run', 'run:no>triage', 'triage:yes>not_runnable', 'not_runnable:->-']],
    [
      'fix-bug',
      [
        'clean:yes>baseline',
        'baseline:no>tests_triage',
        'tests_triage:yes>tests_not_runnable',
        'tests_not_runnable:->-',
      ],
    ],
    ...ratchets([
      'clean:yes>baseline',
      'baseline:no>tests_triage',
      'tests_triage:yes>tests_not_runnable',
      'tests_not_runnable:->-',
    ]),
  ])(
    '%s: the check after a passing one cannot run (alternating, exit 127) → not runnable, no agent call',
    (name, expected) => {
      expect(trace(name, 'alternating', { failExitCode: 127 })).toEqual(expected);
    },
  );

  it('every terminal but the success ones is failure: true (a ratchet short of its target included)', () => {
    for (const name of ['code-run-gate', 'fix-bug', ...RATCHETS]) {
      const terminals = Object.entries(raw(name).states).filter(([, s]) => s.terminal);
      expect(terminals.filter(([, s]) => s.failure !== true).map(([n]) => n)).toEqual(['done']);
    }
  });
});

describe('fix-bug', () => {
  it('proves the fix: the passing check must fail on the last commit (prepatch_check: fail)', () => {
    expect(raw('fix-bug').states.verify?.prepatch_check).toBe('fail');
  });

  it('takes the bug as the run input and refuses to start without one', async () => {
    expect(loadLoop('fix-bug', cwd, { context: { bug: 'x' }, requireParameters: true }).definition?.input_key).toBe(
      'bug',
    );
    const r = await runCliInProcess(['run', 'fix-bug', '--dry-run'], { cwd });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('loop "fix-bug" needs "bug"');
  });
});

describe('migrate-usage', () => {
  it('needs the migration and the pattern', async () => {
    const r = await runCliInProcess(['run', 'migrate-usage', 'use newApi', '--dry-run'], { cwd });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('"pattern"');
  });
});

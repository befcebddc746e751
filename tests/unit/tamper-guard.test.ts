/**
 * `tamper_guard:`'s pure half (fsm/tamper-guard.ts) and which files count as tests
 * (activities/test-files.ts): the policy a state runs under, what a comparison means for the
 * state, the event that names the files, and that a state without a guard asks what it always did.
 */
import { describe, expect, it } from 'vitest';
import { fingerprint, isGuardedFile } from '../../activities/test-files.js';
import { tamperFailure, tamperPolicy } from '../../fsm/tamper-guard.js';
import type { TamperReport } from '../../fsm/check-reports.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

const deleted: TamperReport = { findings: [{ path: 'tests/a.test.ts', kind: 'deleted' }] };
const none: TamperReport = { findings: [] };

describe('the policy a state runs under', () => {
  it.each([
    [{}, {}, undefined],
    [{ tamper_guard: 'fail' }, {}, 'fail'],
    [{}, { tamper_guard: 'warn' }, 'warn'],
    [{ tamper_guard: 'fail' }, { tamper_guard: 'allow' }, undefined],
    [{ tamper_guard: 'allow' }, { tamper_guard: 'revert' }, 'revert'],
    [{ tamper_guard: 'maybe' }, {}, undefined],
  ])('loop %j, state %j → %s', (loopFields, stateFields, expected) => {
    const d = def(loop({ a: { action: 'make', next: 'done', ...stateFields } }, loopFields));
    expect(tamperPolicy(d, d.states.a!)).toBe(expected);
  });
});

describe('what a comparison means for the state', () => {
  it.each([
    ['fail, nothing changed', 'fail', none, undefined],
    [
      'fail, a test deleted',
      'fail',
      deleted,
      /tamper_guard: fail: the action changed test files: tests\/a\.test\.ts \(deleted\)/,
    ],
    ['warn, a test deleted', 'warn', deleted, undefined],
    ['revert, put back', 'revert', { ...deleted, reverted: ['tests/a.test.ts'] }, undefined],
    [
      'revert, not put back',
      'revert',
      { ...deleted, reverted: [] },
      /could not be reverted on: tests\/a\.test\.ts \(deleted\)/,
    ],
    ['fail, not compared', 'fail', { findings: [], error: 'EACCES' }, /could not be checked: EACCES/],
    ['warn, not compared', 'warn', { findings: [], error: 'EACCES' }, undefined],
  ] as const)('%s', (_label, policy, report, expected) => {
    const failure = tamperFailure(policy, report as TamperReport);
    if (expected === undefined) expect(failure).toBeUndefined();
    else expect(failure).toMatch(expected);
  });
});

describe('a guarded state in a run', () => {
  const guarded = (policy: string) =>
    def(
      loop({
        fix: { action: 'make fix', tamper_guard: policy, on_yes: 'done', on_no: 'fix', on_error: 'failed' },
        failed: { terminal: true, failure: true },
      }),
    );

  it('asks the worker to guard the action; a state without the field asks what it always did', () => {
    const run = drive(guarded('fail'), { actions: { fix: [{ tamper: none }] } });
    expect(run.actions[0]).toMatchObject({ kind: 'shell', tamper_guard: 'fail' });
    const plain = drive(def(loop({ fix: { action: 'make fix', on_yes: 'done', on_no: 'fix' } })), {});
    expect(plain.actions[0]).not.toHaveProperty('tamper_guard');
    expect(eventsNamed(run, 'tamper_guard')).toEqual([]);
  });

  it('fail: the state fails naming the file, routed on_error', () => {
    const run = drive(guarded('fail'), { actions: { fix: [{ tamper: deleted }] } });
    expect(eventsNamed(run, 'tamper_guard')).toEqual([
      expect.objectContaining({ state: 'fix', policy: 'fail', findings: ['deleted: tests/a.test.ts'] }),
    ]);
    expect(eventsNamed(run, 'action_error')[0]).toMatchObject({
      error: expect.stringMatching(/tests\/a\.test\.ts \(deleted\)/),
    });
    expect(run.entered).toEqual(['fix', 'failed']);
  });

  it("warn: reported, and the run goes on as the action's exit code says", () => {
    const run = drive(guarded('warn'), { actions: { fix: [{ tamper: deleted }] } });
    expect(eventsNamed(run, 'tamper_guard')).toHaveLength(1);
    expect(run.entered).toEqual(['fix', 'done']);
  });

  it('fail without on_error ends the run with the message', () => {
    const d = def(loop({ fix: { action: 'make fix', tamper_guard: 'fail', on_yes: 'done', on_no: 'fix' } }));
    const run = drive(d, { actions: { fix: [{ tamper: deleted }] } });
    expect(run.result).toMatchObject({
      terminated_by: 'error',
      error: expect.stringMatching(/state "fix": tamper_guard: fail/),
    });
  });

  it('a guarded action never runs in a burst', async () => {
    const { mayBurst } = await import('../../fsm/run/burst.js');
    const d = guarded('fail');
    const snapshot = { pause: undefined, steer: undefined } as never;
    const input = { kind: 'shell', state: 'fix', timeout_s: 1 } as never;
    expect(mayBurst(d, snapshot, input, 60)).toBe(true);
    expect(mayBurst(d, snapshot, { ...(input as object), tamper_guard: 'fail' } as never, 60)).toBe(false);
  });
});

describe('which files count as tests', () => {
  it.each([
    ['tests/test_parse.py', true],
    ['pkg/parse_test.py', true],
    ['src/conftest.py', true],
    ['src/a.test.ts', true],
    ['web/button.spec.jsx', true],
    ['cmd/run_test.go', true],
    ['spec/models/user_spec.rb', true],
    ['test/fixtures/data.json', true],
    ['src/__tests__/x.js', true],
    ['src/FooTest.java', true],
    ['pytest.ini', true],
    ['vitest.config.ts', true],
    ['jest.config.js', true],
    ['.mocharc.yml', true],
    ['pyproject.toml', true],
    ['package.json', true],
    ['src/parse.py', false],
    ['src/attest.ts', false],
    ['docs/testing.md', false],
    ['README.md', false],
  ])('%s → %s', (path, expected) => {
    expect(isGuardedFile(path)).toBe(expected);
  });

  it('pyproject.toml is compared by its pytest section only', () => {
    const a = Buffer.from('[project]\nversion = "1"\n[tool.pytest.ini_options]\naddopts = "-q"\n');
    const bumped = Buffer.from('[project]\nversion = "2"\n[tool.pytest.ini_options]\naddopts = "-q"\n');
    const weakened = Buffer.from('[project]\nversion = "1"\n[tool.pytest.ini_options]\naddopts = "-q -k nothing"\n');
    expect(fingerprint('pyproject.toml', bumped)).toBe(fingerprint('pyproject.toml', a));
    expect(fingerprint('pyproject.toml', weakened)).not.toBe(fingerprint('pyproject.toml', a));
    expect(fingerprint('pyproject.toml', Buffer.from('[project]\nname = "x"\n'))).toBeNull();
  });

  it('package.json is compared by scripts.test and jest only', () => {
    const a = Buffer.from(JSON.stringify({ version: '1', scripts: { test: 'vitest run', build: 'tsc' } }));
    const bumped = Buffer.from(JSON.stringify({ version: '2', scripts: { test: 'vitest run', build: 'tsc -b' } }));
    const gutted = Buffer.from(JSON.stringify({ version: '1', scripts: { test: 'true', build: 'tsc' } }));
    expect(fingerprint('package.json', bumped)).toBe(fingerprint('package.json', a));
    expect(fingerprint('package.json', gutted)).not.toBe(fingerprint('package.json', a));
  });
});

describe('validate', () => {
  it('no longer notes the enforced agent fields as "not yet enforced"', async () => {
    const { validateLoop } = await import('../../fsm/definition/validate.js');
    const raw = loop(
      {
        a: {
          action: 'pytest',
          tamper_guard: 'warn',
          prepatch_check: 'warn',
          cannot_judge: true,
          on_yes: 'done',
          on_no: 'a',
          on_cannot_judge: 'a',
        },
      },
      { tamper_guard: 'fail', prepatch_check: 'fail' },
    );
    const notes = validateLoop(raw).diagnostics.filter((d) => /not yet enforced/.test(d.message));
    expect(notes).toEqual([]);
  });
});

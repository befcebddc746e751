/**
 * `prepatch_check:`'s pure half (fsm/prepatch-check.ts, fsm/run/prepatch.ts): which states run a
 * check, what the worker's pre-patch run means for a passing gate, the event, and that a state
 * without the field asks what it always did.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import { prepatchFinding, prepatchPolicy } from '../../fsm/prepatch-check.js';
import type { PrepatchReport } from '../../fsm/check-reports.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

const unpatched: PrepatchReport = { applied: false };
const passesAnyway: PrepatchReport = { applied: true, base: 'abc123', exit_code: 0 };
const patchMatters: PrepatchReport = { applied: true, base: 'abc123', exit_code: 1 };

describe('which states run a check', () => {
  it.each([
    [{}, { action: 'pytest' }, undefined],
    [{ prepatch_check: 'fail' }, { action: 'pytest' }, 'fail'],
    [{}, { action: 'pytest', prepatch_check: 'warn' }, 'warn'],
    [{ prepatch_check: 'fail' }, { action: 'pytest', prepatch_check: 'allow' }, undefined],
    [{ prepatch_check: 'fail' }, { action: '/ll:verify' }, undefined],
    [{ prepatch_check: 'nope' }, { action: 'pytest' }, undefined],
    [{ prepatch_check: 'fail' }, { action: 'make patch', next: 'done' }, undefined],
  ])('loop %j, state %j → %s', (loopFields, stateFields, expected) => {
    const routes = 'next' in stateFields ? {} : { on_yes: 'done', on_no: 'a' };
    const d = def(loop({ a: { ...stateFields, ...routes } }, loopFields));
    expect(prepatchPolicy(d, d.states.a!)).toBe(expected);
  });

  it('validate warns about prepatch_check on a state without a shell action', () => {
    const result = validateLoop(
      loop({ a: { action: '/ll:verify', prepatch_check: 'fail', on_yes: 'done', on_no: 'a' } }),
    );
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ severity: 'warning', path: ['states', 'a', 'prepatch_check'] }),
    );
  });
});

describe('what the pre-patch run finds', () => {
  it.each([
    ['no patch', unpatched, /no patch was applied/],
    ['passes without the patch', passesAnyway, /passes without the patch too \(on abc123/],
    ['fails without the patch', patchMatters, undefined],
    ['skipped', { skipped: 'not a git checkout' }, undefined],
    ['error', { error: 'git failed' }, undefined],
  ] as const)('%s', (_label, report, expected) => {
    const finding = prepatchFinding(report as PrepatchReport);
    if (expected === undefined) expect(finding).toBeUndefined();
    else expect(finding).toMatch(expected);
  });
});

describe('a gate under prepatch_check in a run', () => {
  const checked = (policy: string) =>
    def(
      loop({
        check: { action: 'pytest', prepatch_check: policy, on_yes: 'done', on_no: 'done', on_error: 'failed' },
        failed: { terminal: true, failure: true },
      }),
    );

  it('asks the worker to check; a state without the field asks what it always did', () => {
    const run = drive(checked('fail'), { actions: { check: [{ exit_code: 0, prepatch: patchMatters }] } });
    expect(run.actions[0]).toMatchObject({ kind: 'shell', prepatch_check: 'fail' });
    const plain = drive(def(loop({ check: { action: 'pytest', on_yes: 'done', on_no: 'done' } })), {});
    expect(plain.actions[0]).not.toHaveProperty('prepatch_check');
  });

  it.each([
    ['fail, no patch', 'fail', unpatched, ['check', 'failed'], 'flagged'],
    ['fail, passes without the patch', 'fail', passesAnyway, ['check', 'failed'], 'flagged'],
    ['fail, the patch makes it pass', 'fail', patchMatters, ['check', 'done'], 'clean'],
    ['fail, not checked', 'fail', { skipped: 'not a git checkout' }, ['check', 'done'], 'skipped'],
    ['warn, no patch', 'warn', unpatched, ['check', 'done'], 'flagged'],
  ] as const)('%s → %j', (_label, policy, prepatch, entered, outcome) => {
    const run = drive(checked(policy), {
      actions: { check: [{ exit_code: 0, prepatch: prepatch as PrepatchReport }] },
    });
    expect(run.entered).toEqual(entered);
    expect(eventsNamed(run, 'prepatch_check')).toEqual([expect.objectContaining({ state: 'check', policy, outcome })]);
    if (entered[1] === 'failed')
      expect(eventsNamed(run, 'action_error')[0]).toMatchObject({
        error: expect.stringMatching(/^prepatch_check: fail: /),
      });
  });

  it('a failing check is not re-judged', () => {
    const run = drive(checked('fail'), { actions: { check: [{ exit_code: 1 }] } });
    expect(run.entered).toEqual(['check', 'done']);
    expect(eventsNamed(run, 'prepatch_check')).toEqual([]);
  });
});

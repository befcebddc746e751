import { describe, expect, it } from 'vitest';
import { CURRENT, declaredTargets, hasShorthand, routeFor } from '../../fsm/routing.js';
import type { StateConfig } from '../../fsm/schema.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

const cfg = (fields: Record<string, unknown>) => ({ terminal: false, failure: false, ...fields }) as StateConfig;

describe('routeFor: the route table', () => {
  it.each([
    [{ yes: 'a', no: 'b', _: 'd' }, 'yes', 'a'],
    [{ yes: 'a', no: 'b', _: 'd' }, 'no', 'b'],
    [{ yes: 'a', no: 'b', _: 'd' }, 'partial', 'd'],
    [{ yes: 'a', no: 'b' }, 'partial', undefined],
    // aliases, both directions
    [{ success: 'a' }, 'yes', 'a'],
    [{ failure: 'b' }, 'no', 'b'],
    [{ yes: 'a' }, 'success', 'a'],
    [{ no: 'b' }, 'failure', 'b'],
    // the exact verdict beats its alias, the alias beats _
    [{ yes: 'a', success: 's' }, 'yes', 'a'],
    [{ success: 's', _: 'd' }, 'yes', 's'],
    // error: _error, then error, then _
    [{ _error: 'e1', error: 'e2', _: 'd' }, 'error', 'e1'],
    [{ error: 'e2', _: 'd' }, 'error', 'e2'],
    [{ _: 'd' }, 'error', 'd'],
    [{ yes: 'a' }, 'error', undefined],
    // _error is only for errors
    [{ _error: 'e1' }, 'no', undefined],
    [{ target: 't', progress: '$current', stall: 's' }, 'progress', '$current'],
  ])('route %j, verdict %s → %s', (route, verdict, expected) => {
    expect(routeFor(cfg({ route }), verdict)).toBe(expected);
  });
});

describe('routeFor: shorthand', () => {
  it.each([
    [{ on_yes: 'a' }, 'yes', 'a'],
    [{ on_yes: 'a' }, 'success', 'a'],
    [{ on_success: 'a' }, 'yes', 'a'],
    [{ on_no: 'b' }, 'no', 'b'],
    [{ on_no: 'b' }, 'failure', 'b'],
    [{ on_failure: 'b' }, 'no', 'b'],
    [{ on_yes: 'a', on_success: 's' }, 'yes', 'a'],
    [{ on_error: 'e' }, 'error', 'e'],
    [{ on_blocked: 'x' }, 'blocked', 'x'],
    [{ on_partial: 'p' }, 'partial', 'p'],
    [{ on_target: 't', on_stall: 's' }, 'stall', 's'],
    [{ on_yes: 'a', on_error: 'e' }, 'no', undefined],
    [{ on_yes: 'a' }, 'blocked', undefined],
    [{}, 'yes', undefined],
  ])('%j, verdict %s → %s', (fields, verdict, expected) => {
    expect(routeFor(cfg(fields), verdict)).toBe(expected);
  });

  it('a route table wins over shorthand for the same verdict', () => {
    expect(routeFor(cfg({ route: { yes: 'table' }, on_yes: 'short' }), 'yes')).toBe('table');
  });
});

describe('declaredTargets and hasShorthand', () => {
  it('lists next, route entries and on_* keys with the key that declares them', () => {
    expect(
      declaredTargets(
        cfg({ next: 'n', route: { yes: 'a', _: 'd' }, on_error: 'e', on_partial: 'p', description: 'x' }),
      ),
    ).toEqual([
      { key: 'next', target: 'n' },
      { key: 'route.yes', target: 'a' },
      { key: 'route._', target: 'd' },
      { key: 'on_error', target: 'e' },
      { key: 'on_partial', target: 'p' },
    ]);
  });

  it.each([
    [{ on_yes: 'a' }, true],
    [{ on_custom: 'a' }, true],
    [{ on_maintain: 'a' }, false],
    [{ route: { yes: 'a' } }, false],
    [{ next: 'a' }, false],
  ])('hasShorthand(%j) is %s', (fields, expected) => {
    expect(hasShorthand(cfg(fields))).toBe(expected);
  });

  it('CURRENT is the $current token', () => {
    expect(CURRENT).toBe('$current');
  });
});

describe('resolution order in a run', () => {
  it.each([
    ['next ignores the exit code when on_error is not set', { action: 'x', next: 'b' }, 1, ['a', 'b', 'done']],
    ['next with on_error follows next on exit 0', { action: 'x', next: 'b', on_error: 'e' }, 0, ['a', 'b', 'done']],
    [
      'next with on_error goes to on_error on a non-zero exit',
      { action: 'x', next: 'b', on_error: 'e' },
      1,
      ['a', 'e', 'done'],
    ],
    ['next with on_error goes to on_error on exit 2', { action: 'x', next: 'b', on_error: 'e' }, 2, ['a', 'e', 'done']],
    [
      'next wins over an evaluate block',
      { action: 'x', next: 'b', evaluate: { type: 'output_contains', pattern: 'never' } },
      0,
      ['a', 'b', 'done'],
    ],
  ])('%s', (_label, a, exit_code, entered) => {
    const run = drive(def(loop({ a, b: { next: 'done' }, e: { next: 'done' } })), { actions: { a: [{ exit_code }] } });
    expect(run.entered).toEqual(entered);
    expect(
      eventsNamed(run, 'evaluate')
        .filter((e) => e.state === 'a')
        .map((e) => e.type),
    ).toEqual(entered[1] === 'e' ? ['error'] : []);
  });

  it('next + on_error on a non-zero exit emits action_error, an error evaluation and keeps prev', () => {
    const d = def(
      loop({
        a: { action: 'x', next: 'b', on_error: 'e' },
        b: { next: 'done' },
        e: { action: 'echo ${prev.exit_code}', next: 'done' },
      }),
    );
    const run = drive(d, { actions: { a: [{ exit_code: 3, output: 'boom' }] } });
    expect(eventsNamed(run, 'action_error')).toEqual([
      { event: 'action_error', state: 'a', error: 'action exited with code 3' },
    ]);
    expect(eventsNamed(run, 'route')[0]).toEqual({ event: 'route', from: 'a', to: 'e', verdict: 'error' });
    expect(run.actions[1]?.shell?.vars).toEqual({ LL_V1: '3' });
  });

  const llmState = (routes: Record<string, unknown>) =>
    def(
      loop({
        fix: { action: '/ll:fix', ...routes },
        a: { next: 'done' },
        b: { next: 'done' },
        c: { next: 'done' },
        d: { next: 'done' },
      }),
    );

  it.each([
    [{ route: { yes: 'a', no: 'b', _: 'd' } }, 'yes', 'a'],
    [{ route: { yes: 'a', no: 'b', _: 'd' } }, 'partial', 'd'],
    [{ route: { success: 'a', failure: 'b' } }, 'no', 'b'],
    [{ route: { yes: 'a', _error: 'c', _: 'd' } }, 'error', 'c'],
    [{ on_yes: 'a', on_partial: 'c' }, 'partial', 'c'],
    [{ on_yes: 'a', on_blocked: 'c' }, 'blocked', 'c'],
    [{ on_success: 'a', on_failure: 'b' }, 'yes', 'a'],
    [{ on_success: 'a', on_failure: 'b' }, 'no', 'b'],
    [{ route: { yes: 'a' }, on_yes: 'b', on_no: 'b' }, 'yes', 'a'],
  ])('%j routes LLM verdict %s to %s', (routes, verdict, to) => {
    const run = drive(llmState(routes), { llm: { fix: [verdict] } });
    expect(run.entered).toEqual(['fix', to, 'done']);
    expect(eventsNamed(run, 'route')[0]).toEqual({ event: 'route', from: 'fix', to, verdict });
  });

  it.each([
    ['no on a state with only on_yes and on_error', { on_yes: 'a', on_error: 'c' }, 'no'],
    ['blocked without on_blocked', { on_yes: 'a', on_no: 'b' }, 'blocked'],
    ['a verdict missing from a route table without _', { route: { yes: 'a', no: 'b' } }, 'partial'],
    [
      'a verdict the table lacks even with shorthand set (the table is the only one consulted)',
      { route: { yes: 'a' }, on_no: 'b' },
      'no',
    ],
  ])('%s ends the run with an error naming the state and the verdict', (_label, routes, verdict) => {
    const run = drive(llmState(routes), { llm: { fix: [verdict] } });
    expect(run.entered).toEqual(['fix']);
    expect(eventsNamed(run, 'route')).toEqual([]);
    expect(run.result).toMatchObject({ terminated_by: 'error', final_state: 'fix' });
    expect(run.result.error).toContain('state "fix"');
    expect(run.result.error).toContain(`verdict "${verdict}"`);
  });

  it('an error verdict without an error route says why the evaluation failed', () => {
    const d = def(
      loop({ a: { action: 'x', evaluate: { type: 'output_numeric', target: 1 }, on_yes: 'done', on_no: 'a' } }),
    );
    const run = drive(d, { actions: { a: [{ output: 'not a number' }] } });
    expect(run.result.terminated_by).toBe('error');
    expect(run.result.error).toMatch(/verdict "error" \(.+\)/);
  });
});

describe('$current and interpolated targets', () => {
  it('$current re-enters the state and the route event names it', () => {
    const d = def(loop({ a: { action: 'x', on_yes: 'done', on_no: '$current' } }));
    const run = drive(d, { actions: { a: [{ exit_code: 1 }, { exit_code: 0 }] } });
    expect(run.entered).toEqual(['a', 'a', 'done']);
    expect(eventsNamed(run, 'route')[0]).toEqual({ event: 'route', from: 'a', to: 'a', verdict: 'no' });
  });

  it('next: $current loops until max_iterations', () => {
    const d = def(loop({ a: { action: 'x', next: '$current' } }, { max_iterations: 4 }));
    const run = drive(d);
    expect(run.entered).toEqual(['a', 'a', 'a', 'a']);
    expect(run.result).toMatchObject({ terminated_by: 'max_iterations', iterations: 4 });
  });

  it.each([
    ['${context.next_state}', { next_state: 'b' }, {}, 'b'],
    ['${context.next_state}', { next_state: '$current' }, {}, 'a'],
    ['${captured.route.output}', {}, { output: 'c' }, 'c'],
    ['${context.prefix}_x', { prefix: 'b' }, {}, 'b_x'],
  ])('on_yes: %s goes to the state it names', (target, context, capture, to) => {
    const d = def(
      loop(
        {
          a: { action: 'x', capture: 'route', on_yes: target, on_no: 'done' },
          b: { next: 'done' },
          c: { next: 'done' },
          b_x: { next: 'done' },
        },
        { context },
      ),
    );
    const run = drive(d, { actions: { a: [{ exit_code: 0, ...capture }, { exit_code: 1 }] } });
    expect(run.entered.slice(0, 2)).toEqual(['a', to]);
  });

  it.each([
    [
      'a name that is not a state',
      '${context.next_state}',
      { next_state: 'nowhere' },
      ['"nowhere"', 'state "a"', 'not a state'],
    ],
    ['an undefined variable', '${context.missing}', {}, ['${context.missing}', 'state "a"']],
  ])(
    'an interpolated target resolving to %s ends the run with an error naming it',
    (_label, target, context, parts) => {
      const d = def(loop({ a: { action: 'x', on_yes: target, on_no: 'done' } }, { context }));
      const run = drive(d);
      expect(run.result).toMatchObject({ terminated_by: 'error', final_state: 'a' });
      for (const part of parts) expect(run.result.error).toContain(part);
      expect(eventsNamed(run, 'route')).toEqual([]);
    },
  );
});

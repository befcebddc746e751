/**
 * Maintain mode in the pure core (seed 000: `on_maintain` on the terminal state, else `initial`):
 * restarts, per-cycle pass counting, the delay, and the cycle count in the result.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import { begin, def, defFromYaml, drive, eventsNamed, next } from './helpers.js';

/** Seed 000's compiled invariants loop, shortened: all_valid restarts at check_tests. */
const guardian = (extra: Record<string, unknown> = {}) =>
  def({
    name: 'code-quality-guardian',
    description: 'keep tests and lint green',
    initial: 'setup',
    maintain: true,
    max_steps: 9,
    ...extra,
    states: {
      setup: { action: 'npm ci', next: 'check_tests' },
      check_tests: { action: 'pytest', on_success: 'check_lint', on_failure: 'fix_tests' },
      fix_tests: { action: '/ll:manage_issue bug fix', next: 'check_tests' },
      check_lint: { action: 'ruff check src/', on_success: 'all_valid', on_failure: 'all_valid' },
      all_valid: { terminal: true, on_maintain: 'check_tests' },
    },
  });

describe('maintain mode', () => {
  it("restarts at the terminal state's on_maintain, as pass 1 of a new cycle, until a limit ends it", () => {
    const run = drive(guardian());
    expect(run.entered).toEqual([
      'setup',
      'check_tests',
      'check_lint',
      'all_valid',
      'check_tests',
      'check_lint',
      'all_valid',
      'check_tests',
      'check_lint',
    ]);
    expect(eventsNamed(run, 'maintain_restart')).toEqual([
      { event: 'maintain_restart', state: 'all_valid', cycle: 1, to: 'check_tests' },
      { event: 'maintain_restart', state: 'all_valid', cycle: 2, to: 'check_tests' },
    ]);
    expect(eventsNamed(run, 'state_enter').map((e) => e.iteration)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(run.result).toMatchObject({ terminated_by: 'max_steps', steps: 9, cycles: 2 });
    expect(eventsNamed(run, 'loop_complete')[0]).toMatchObject({ cycles: 2 });
  });

  it('max_iterations bounds one cycle, not the run', () => {
    const d = def({
      name: 'm',
      description: 'm',
      initial: 'a',
      maintain: true,
      max_iterations: 2,
      max_steps: 12,
      states: { a: { action: 'x', on_yes: 'done', on_no: 'a' }, done: { terminal: true } },
    });
    // Each cycle: a (no) → a (yes) → done = 2 passes; never more than max_iterations.
    const run = drive(d, { actions: { a: [{ exit_code: 1 }, { exit_code: 0 }] } });
    expect(run.result.terminated_by).toBe('max_steps');
    expect(Math.max(...eventsNamed(run, 'state_enter').map((e) => Number(e.iteration)))).toBe(2);
    expect(run.result.cycles).toBe(eventsNamed(run, 'maintain_restart').length);
    expect(run.result.cycles).toBeGreaterThan(2); // more passes in all than max_iterations allows one cycle
  });

  it('without on_maintain restarts at initial; maintain_delay is a durable sleep between cycles', () => {
    const run = drive(guardian({ maintain_delay: 30 }), {});
    const d = def({
      name: 'm',
      description: 'm',
      initial: 'a',
      maintain: true,
      maintain_delay: 0.5,
      max_steps: 4,
      states: { a: { action: 'x', next: 'done' }, done: { terminal: true } },
    });
    const plain = drive(d);
    expect(plain.entered).toEqual(['a', 'done', 'a', 'done']);
    expect(plain.commands.filter((c) => c.type === 'sleep')).toEqual([
      { type: 'sleep', ms: 500, reason: 'maintain_delay' },
      { type: 'sleep', ms: 500, reason: 'maintain_delay' },
    ]);
    expect(run.commands.filter((c) => c.type === 'sleep')).toHaveLength(2);
    expect(plain.snapshots.some((s) => s.phase === 'maintain_delay')).toBe(true);
  });

  it('on_maintain may be $current or a template, resolved like a route target', () => {
    const d = def({
      name: 'm',
      description: 'm',
      initial: 'a',
      maintain: true,
      max_steps: 5,
      context: { again: 'b' },
      states: {
        a: { action: 'x', next: 'done' },
        b: { action: 'y', next: 'done' },
        done: { action: 'z', terminal: true, on_maintain: '${context.again}' },
      },
    });
    expect(drive(d).entered).toEqual(['a', 'done', 'b', 'done', 'b']);
    const self = def({
      name: 'm',
      description: 'm',
      initial: 'a',
      maintain: true,
      max_steps: 4,
      states: { a: { action: 'x', next: 'done' }, done: { action: 'z', terminal: true, on_maintain: '$current' } },
    });
    expect(drive(self).entered).toEqual(['a', 'done', 'done', 'done']);
  });

  it('an on_maintain that names no state ends the run with an error instead of crashing', () => {
    const d = def({
      name: 'm',
      description: 'm',
      initial: 'a',
      maintain: true,
      states: {
        a: { action: 'x', capture: 'next', next: 'done' },
        done: { terminal: true, on_maintain: '${captured.next.output}' },
      },
    });
    const run = drive(d, { actions: { a: [{ output: 'nowhere\n' }] } });
    expect(run.result).toMatchObject({ terminated_by: 'error', final_state: 'done', cycles: 0 });
    expect(run.result.error).toContain('on_maintain "nowhere"');
  });

  it('a cancellation during the delay ends the run with its cycles', () => {
    const d = def({
      name: 'm',
      description: 'm',
      initial: 'a',
      maintain: true,
      maintain_delay: 60,
      states: { a: { action: 'x', next: 'done' }, done: { terminal: true } },
    });
    let out = begin(d);
    out = next(d, out, {
      type: 'action_done',
      result: { output: '', stderr: '', exit_code: 0, duration_ms: 1 },
      now: 5,
    });
    expect(out.snapshot.phase).toBe('maintain_delay');
    out = next(d, out, { type: 'cancel', now: 10 });
    expect(out.effect).toMatchObject({ type: 'finish', result: { terminated_by: 'cancelled', cycles: 1 } });
  });

  it('runs without maintain have no cycles field', () => {
    const d = def({ name: 'm', description: 'm', initial: 'done', states: { done: { terminal: true } } });
    expect(drive(d).result).not.toHaveProperty('cycles');
  });
});

describe('maintain validation', () => {
  const messages = (raw: Record<string, unknown>) =>
    validateLoop(raw).diagnostics.map((x) => `${x.severity}: ${x.message}`);

  it("accepts seed 000's on_maintain: null (unset) and checks on_maintain targets", () => {
    const d = defFromYaml(
      'name: g\ndescription: g\ninitial: a\nstates:\n  a:\n    action: x\n    next: done\n  done:\n    terminal: true\n    on_maintain: ~\n',
    );
    expect(d.states.done?.on_maintain).toBeNull();
    expect(
      messages({
        name: 'g',
        description: 'g',
        initial: 'a',
        maintain: true,
        states: { a: { action: 'x', next: 'done' }, done: { terminal: true, on_maintain: 'nope' } },
      }),
    ).toContainEqual(expect.stringMatching(/^error: on_maintain goes to "nope"/));
  });

  it('warns when on_maintain cannot take effect', () => {
    expect(
      messages({
        name: 'g',
        description: 'g',
        initial: 'a',
        states: { a: { action: 'x', next: 'done' }, done: { terminal: true, on_maintain: 'a' } },
      }),
    ).toContainEqual('warning: on_maintain has no effect without maintain: true');
    expect(
      messages({
        name: 'g',
        description: 'g',
        initial: 'a',
        maintain: true,
        states: { a: { action: 'x', next: 'done', on_maintain: 'a' }, done: { terminal: true } },
      }),
    ).toContainEqual('warning: on_maintain is only used on terminal states');
  });
});

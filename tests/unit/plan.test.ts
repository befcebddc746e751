/**
 * The plan of a loop (fsm/tools/plan.ts), what `run --dry-run` prints (runs/start/dry-run.ts):
 * its states in the order a run meets them, with their transitions, evaluators, sub-loops and
 * limits.
 */
import { describe, expect, it } from 'vitest';
import { planOf } from '../../fsm/tools/plan.js';
import { def } from './helpers.js';

describe('planOf', () => {
  it('lists states breadth-first from initial, with transitions, then unreachable ones', () => {
    const d = def({
      name: 'plan',
      description: 'd',
      initial: 'check',
      max_iterations: 7,
      backoff: 2,
      timeout: 600,
      context: { dir: 'src' },
      states: {
        done: { terminal: true },
        orphan: { next: 'done' },
        fix: { action: '/ll:fix', route: { yes: 'check', blocked: 'stuck' }, timeout: 30 },
        check: { action: 'mypy ${context.dir}', on_yes: 'done', on_no: 'fix', on_error: '$current' },
        stuck: { terminal: true, failure: true, action: 'echo stuck' },
        probe: { evaluate: { type: 'exit_code', source: '1' }, on_yes: 'done', on_no: 'done' },
      },
    });
    const plan = planOf(d);
    expect(plan.states.map((s) => s.name)).toEqual(['check', 'done', 'fix', 'stuck', 'orphan', 'probe']);
    expect(plan).toMatchObject({
      loop: 'plan',
      initial: 'check',
      max_iterations: 7,
      backoff_s: 2,
      timeout_s: 600,
      llm_enabled: true,
      context: { dir: 'src' },
    });
    expect(plan.states[0]).toEqual({
      name: 'check',
      terminal: false,
      failure: false,
      action: { kind: 'shell', text: 'mypy ${context.dir}', timeout_s: 3600 },
      evaluator: 'exit_code',
      transitions: [
        { on: 'yes', to: 'done' },
        { on: 'no', to: 'fix' },
        { on: 'error', to: '$current' },
      ],
    });
    expect(plan.states[2]).toMatchObject({
      action: { kind: 'prompt', timeout_s: 30 },
      evaluator: 'llm_structured',
      transitions: [
        { on: 'yes', to: 'check' },
        { on: 'blocked', to: 'stuck' },
      ],
    });
    expect(plan.states[3]).toEqual({
      name: 'stuck',
      terminal: true,
      failure: true,
      action: { kind: 'shell', text: 'echo stuck', timeout_s: 3600 },
      transitions: [],
    });
    expect(plan.states[4]).toEqual({
      name: 'orphan',
      terminal: false,
      failure: false,
      transitions: [{ on: 'next', to: 'done' }],
    });
    expect(plan.states[5]?.evaluator).toBe('exit_code');
  });

  it('names the child of a sub-loop state, how it gets its values, and its timeout', () => {
    const d = def({
      name: 'parent',
      description: 'd',
      initial: 'a',
      states: {
        a: { loop: 'child', with: { n: 5 }, timeout: 60, on_success: 'b', on_failure: 'done' },
        b: { loop: 'other', context_passthrough: true, on_success: 'done' },
        done: { terminal: true },
      },
    });
    const [a, b] = planOf(d).states;
    expect(a?.subloop).toEqual({ loop: 'child', passthrough: false, with: { n: 5 }, timeout_s: 60 });
    expect(b?.subloop).toEqual({ loop: 'other', passthrough: true });
    expect(a?.action).toBeUndefined();
  });

  it('omits timeout_s and backoff_s when not set and reports llm disabled', () => {
    const plan = planOf(
      def({
        name: 'x',
        description: 'd',
        initial: 'a',
        llm: { enabled: false },
        states: { a: { action: 'make', on_yes: 'done', on_no: 'a' }, done: { terminal: true } },
      }),
    );
    expect(plan.timeout_s).toBeUndefined();
    expect(plan.backoff_s).toBeUndefined();
    expect(plan.llm_enabled).toBe(false);
    expect(plan.states.map((s) => s.name)).toEqual(['a', 'done']);
  });
});

/**
 * An item of a fan-out that keeps a shared budget ledger (fsm/run/shared-budget.ts): once the
 * parent said the fan-out's budget is spent, the item makes no further agent call — a prompt
 * action or an LLM evaluation — and ends `terminated_by: budget` or routes `on_budget`; shell
 * actions still run; without the note nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { noteSharedBudgetSpent, sharedBudgetHit } from '../../fsm/run/shared-budget.js';
import type { BudgetHit } from '../../fsm/types.js';
import type { RunningSnapshot, Transition } from '../../fsm/run/snapshot.js';
import { begin, def, loop, next } from './helpers.js';

const HIT: BudgetHit = { scope: 'loop', limit: 'max_cost_usd', spent: 1.2, max: 1 };
const done = (now: number) =>
  ({ type: 'action_done', result: { output: 'ok', stderr: '', exit_code: 0, duration_ms: 5 }, now }) as const;

function noted(t: Transition): Transition {
  return { ...t, snapshot: noteSharedBudgetSpent(t.snapshot as RunningSnapshot, HIT) } as Transition;
}

describe('a fan-out item told its shared budget is spent', () => {
  it('makes no further prompt call: budget_spent, then the end terminated_by budget with the fan-out figures', () => {
    const d = def(loop({ fix: { action: 'work', action_type: 'prompt', next: 'fix' } }));
    let out = begin(d);
    expect(out.effect.type).toBe('run_action');
    // The call in flight when the note came finishes and is charged as usual.
    out = next(d, noted(out), { ...done(10), result: { ...done(10).result, usage: { cost_usd: 0.3 } } });
    expect(out.effect).toMatchObject({
      type: 'finish',
      result: { terminated_by: 'budget', final_state: 'fix', spent: { cost_usd: 0.3 } },
    });
    expect(out.events.filter((e) => e.event === 'action_start')).toHaveLength(0);
    expect(out.events.find((e) => e.event === 'budget_spent')).toMatchObject({
      state: 'fix',
      scope: 'loop',
      spent: 1.2,
      max: 1,
    });
    expect((out.effect as { result: { error?: string } }).result.error).toBe(
      'budget spent in state "fix": $1.20 of max_cost_usd 1',
    );
  });

  it('makes no LLM evaluation and routes on_budget; shell actions still run', () => {
    const d = def(
      loop({
        check: { action: 'echo checked', next: 'judge' },
        judge: {
          action: 'echo x',
          evaluate: { type: 'llm_structured' },
          on_yes: 'done',
          on_no: 'judge',
          on_budget: 'report',
        },
        report: { action: 'echo out of budget', next: 'done' },
      }),
    );
    let out = noted(begin(d));
    out = next(d, out, done(10));
    expect(out.effect).toMatchObject({ type: 'run_action', input: { state: 'judge' } });
    out = next(d, out, done(20));
    expect(out.effect).toMatchObject({ type: 'run_action', input: { state: 'report' } });
    expect(out.events.map((e) => e.event)).toContain('budget_spent');
  });

  it('without the note an item decides as before; the first note stands', () => {
    const d = def(loop({ fix: { action: 'work', action_type: 'prompt', next: 'fix' } }));
    const out = next(d, begin(d), done(10));
    expect(out.effect).toMatchObject({ type: 'run_action', input: { state: 'fix' } });
    expect(sharedBudgetHit(out.snapshot)).toBeUndefined();
    const once = noteSharedBudgetSpent(out.snapshot as RunningSnapshot, HIT);
    expect(noteSharedBudgetSpent(once, { ...HIT, spent: 9 }).sharedBudgetSpent).toEqual(HIT);
  });
});

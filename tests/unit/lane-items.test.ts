/**
 * Which fan-out items run in the parent's lanes (fsm/run/lane-items.ts): a loop of quick shell
 * actions and pure decisions does; anything that needs a run of its own, a timer between actions,
 * or a non-quick action keeps a child run per item, and the reason names the state.
 */
import { describe, expect, it } from 'vitest';
import { laneRefusal } from '../../fsm/run/lane-items.js';
import type { ParallelRequest } from '../../fsm/types.js';
import { def } from './helpers.js';

const PLAIN: Pick<ParallelRequest, 'isolation' | 'timeout_s' | 'budget'> = { isolation: 'none' };

function item(states: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return def({ name: 'work', description: 'an item', initial: 'run', ...extra, states });
}

const quick = { run: { action: 'make check', timeout: 10, on_yes: 'done', on_no: 'failed' }, ...ends() };

function ends() {
  return { done: { terminal: true }, failed: { terminal: true, failure: true } };
}

describe('laneRefusal', () => {
  it('runs a loop of quick shell actions and pure decisions in lanes', () => {
    expect(laneRefusal(item(quick), PLAIN, 30)).toBeUndefined();
    const decisions = item({
      run: { action: 'echo 3', timeout: 5, capture: 'n', next: 'check' },
      check: { evaluate: { type: 'output_numeric', operator: 'gt', target: 2 }, on_yes: 'done', on_no: 'failed' },
      ...ends(),
    });
    expect(laneRefusal(decisions, PLAIN, 30)).toBeUndefined();
    // A loop default quick enough counts as the state's own timeout.
    expect(
      laneRefusal(item({ run: { action: 'true', next: 'done' }, ...ends() }, { default_timeout: 20 }), PLAIN, 30),
    ).toBeUndefined();
  });

  it('keeps a child run per item for an action that is not quick, or no quick lane at all', () => {
    expect(laneRefusal(item({ run: { action: 'make', next: 'done' }, ...ends() }), PLAIN, 30)).toBe(
      'state "run" is not quick',
    );
    expect(laneRefusal(item(quick), PLAIN, 0)).toBe('state "run" is not quick');
    expect(
      laneRefusal(
        item({ run: { action: 'fix the bug', action_type: 'prompt', timeout: 10, next: 'done' }, ...ends() }),
        PLAIN,
        30,
      ),
    ).toBe('state "run" is not a shell action');
  });

  it('keeps child runs for what the state asks of them: a worktree, a timeout, a budget', () => {
    expect(laneRefusal(item(quick), { isolation: 'worktree' }, 30)).toBe('isolation: worktree');
    expect(laneRefusal(item(quick), { isolation: 'none', timeout_s: 60 }, 30)).toBe("the state's timeout");
    expect(laneRefusal(item(quick), { isolation: 'none', budget: { max_cost_usd: 1 } }, 30)).toBe('a budget');
  });

  it('keeps child runs for a loop that needs its own run or sleeps between actions', () => {
    expect(laneRefusal(item(quick, { timeout: 60 }), PLAIN, 30)).toBe("the loop's timeout");
    expect(laneRefusal(item(quick, { scope: ['src'] }), PLAIN, 30)).toBe("the loop's scopes");
    expect(laneRefusal(item(quick, { backoff: 2 }), PLAIN, 30)).toBe("the loop's backoff");
    expect(laneRefusal(item(quick, { maintain: true }), PLAIN, 30)).toBe('maintain mode');
    expect(laneRefusal(item({ run: { loop: 'other', on_yes: 'done', on_no: 'failed' }, ...ends() }), PLAIN, 30)).toBe(
      'state "run" is a sub-loop',
    );
    const retried = { run: { ...quick.run, retry: { attempts: 3, backoff: 1 } }, ...ends() };
    expect(laneRefusal(item(retried), PLAIN, 30)).toBe('state "run" retries after a delay');
    const atOnce = { run: { ...quick.run, retry: { attempts: 3, backoff: 0 } }, ...ends() };
    expect(laneRefusal(item(atOnce), PLAIN, 30)).toBeUndefined();
    const judged = { run: { ...quick.run, evaluate: { type: 'llm_structured' } }, ...ends() };
    expect(laneRefusal(item(judged), PLAIN, 30)).toBe('a judged state');
    const diff = { run: { ...quick.run, evaluate: { type: 'diff_stall' } }, ...ends() };
    expect(laneRefusal(item(diff), PLAIN, 30)).toBe('state "run" reads git diff');
  });
});

/**
 * Budgets (issue 13 §2): the arithmetic of fsm/run/budget.ts, and runs through `transition()` whose
 * agent calls report usage — `budget_spent`, `on_budget`, `terminated_by: budget`, the check
 * before a provider call that states its maximum, and what a sub-loop inherits and reports.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';
import { stateTransitions } from '../../client/show/graph.js';
import { createHumanReporter } from '../../reporters/human.js';
import { createStyle } from '../../reporters/style.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import {
  addSpend,
  budgetHit,
  childBudget,
  budgetMessage,
  cannotCover,
  charged,
  formatUsd,
  loopLimits,
  reachedLimit,
  remainingBudget,
  spendLine,
  usageSpend,
} from '../../fsm/run/budget.js';
import { outcomeOf, closing, FAILED_OUTCOMES } from '../../fsm/run/outcome.js';
import { subloopVerdict } from '../../fsm/run/subloop.js';
import type { RunEvent, Transition } from '../../fsm/run/snapshot.js';
import { transition } from '../../fsm/run/transition.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { begin, def, drive, eventsNamed, loop, next } from './helpers.js';

describe('budget arithmetic', () => {
  it('an agent call spends its tokens in and out, its cost, and its reported time (else the fallback)', () => {
    expect(usageSpend({ input_tokens: 100, output_tokens: 20, cost_usd: 0.01, duration_ms: 900 }, 5000)).toEqual({
      cost_usd: 0.01,
      tokens: 120,
      agent_ms: 900,
    });
    expect(usageSpend({ input_tokens: 7 }, 5000)).toEqual({ cost_usd: 0, tokens: 7, agent_ms: 5000 });
    expect(usageSpend({ output_tokens: 3 })).toEqual({ cost_usd: 0, tokens: 3, agent_ms: 0 });
  });

  it('sums costs without drifting, per run and per state', () => {
    let spend = undefined;
    for (let i = 0; i < 10; i += 1) spend = addSpend(spend, { cost_usd: 0.1, tokens: 1, agent_ms: 2 });
    expect(spend).toEqual({ cost_usd: 1, tokens: 10, agent_ms: 20 });
    const snap = charged(charged({}, 'a', { cost_usd: 1, tokens: 2, agent_ms: 3 }), 'b', {
      cost_usd: 1,
      tokens: 2,
      agent_ms: 3,
    });
    expect(snap).toEqual({
      spent: { cost_usd: 2, tokens: 4, agent_ms: 6 },
      spentByState: { a: { cost_usd: 1, tokens: 2, agent_ms: 3 }, b: { cost_usd: 1, tokens: 2, agent_ms: 3 } },
    });
  });

  it('a limit is reached at spent >= max, in the order cost, tokens, agent time', () => {
    expect(reachedLimit({ max_cost_usd: 5 }, { cost_usd: 4.99, tokens: 0, agent_ms: 0 })).toBeUndefined();
    expect(reachedLimit({ max_cost_usd: 5 }, { cost_usd: 5, tokens: 0, agent_ms: 0 })).toEqual({
      limit: 'max_cost_usd',
      spent: 5,
      max: 5,
    });
    expect(reachedLimit({ max_tokens: 10, max_agent_seconds: 1 }, { cost_usd: 9, tokens: 3, agent_ms: 1500 })).toEqual({
      limit: 'max_agent_seconds',
      spent: 1.5,
      max: 1,
    });
    expect(reachedLimit(undefined, { cost_usd: 9, tokens: 9, agent_ms: 9 })).toBeUndefined();
  });

  it("a sub-loop's loop limits are the smaller of its own and what its parent left", () => {
    expect(loopLimits({ budget: undefined }, undefined)).toBeUndefined();
    expect(
      loopLimits({ budget: { max_cost_usd: 2, max_tokens: 100 } }, { max_cost_usd: 1.5, max_agent_seconds: 60 }),
    ).toEqual({ max_cost_usd: 1.5, max_tokens: 100, max_agent_seconds: 60 });
    expect(loopLimits({ budget: undefined }, { max_tokens: 5 })).toEqual({ max_tokens: 5 });
  });

  it('what is left of a loop budget, never below zero', () => {
    const d = def(loop({ a: { action: 'x', next: 'done' } }, { budget: { max_cost_usd: 5, max_tokens: 1000 } }));
    expect(remainingBudget(d, { spent: { cost_usd: 1.25, tokens: 1200, agent_ms: 0 } })).toEqual({
      max_cost_usd: 3.75,
      max_tokens: 0,
    });
    expect(remainingBudget(def(loop({ a: { action: 'x', next: 'done' } })), {})).toBeUndefined();
  });

  it("the state's own budget is checked first, then the loop's", () => {
    const d = def(
      loop({ a: { action: 'x', next: 'done', budget: { max_tokens: 10 } } }, { budget: { max_tokens: 100 } }),
    );
    expect(
      budgetHit(
        d,
        {
          spentByState: { a: { cost_usd: 0, tokens: 10, agent_ms: 0 } },
          spent: { cost_usd: 0, tokens: 10, agent_ms: 0 },
        },
        'a',
      ),
    ).toMatchObject({ scope: 'state', limit: 'max_tokens' });
    expect(
      budgetHit(
        d,
        {
          spentByState: { a: { cost_usd: 0, tokens: 9, agent_ms: 0 } },
          spent: { cost_usd: 0, tokens: 100, agent_ms: 0 },
        },
        'a',
      ),
    ).toMatchObject({ scope: 'loop', spent: 100, max: 100 });
    expect(budgetHit(d, { spent: { cost_usd: 0, tokens: 99, agent_ms: 0 } }, 'a')).toBeUndefined();
  });

  it('a call stating its maximum must fit in the tokens left (the state and the loop)', () => {
    const d = def(loop({ a: { action: 'x', next: 'done' } }, { budget: { max_tokens: 1000 } }));
    expect(cannotCover(d, { spent: { cost_usd: 0, tokens: 744, agent_ms: 0 } }, 'a', 256)).toBeUndefined();
    expect(cannotCover(d, { spent: { cost_usd: 0, tokens: 745, agent_ms: 0 } }, 'a', 256)).toEqual({
      scope: 'loop',
      limit: 'max_tokens',
      spent: 745,
      max: 1000,
      needed: 256,
    });
    expect(cannotCover(d, { spent: { cost_usd: 0, tokens: 999, agent_ms: 0 } }, 'a', undefined)).toBeUndefined();
  });

  it('messages and displays', () => {
    expect(formatUsd(5)).toBe('$5');
    expect(formatUsd(5.031)).toBe('$5.03');
    expect(formatUsd(0.0042)).toBe('$0.0042');
    expect(budgetMessage({ scope: 'loop', limit: 'max_cost_usd', spent: 5.03, max: 5 }, 'fix')).toBe(
      'budget spent in state "fix": $5.03 of max_cost_usd 5',
    );
    expect(budgetMessage({ scope: 'state', limit: 'max_tokens', spent: 1200, max: 1000 }, 'fix')).toBe(
      'the budget of state "fix" is spent: 1200 tokens of max_tokens 1000',
    );
    expect(budgetMessage({ scope: 'loop', limit: 'max_tokens', spent: 800, max: 1000, needed: 256 }, 'judge')).toBe(
      'budget cannot cover the next agent call in state "judge": it may use up to 256 tokens, and 800 tokens of max_tokens 1000 are spent',
    );
    expect(spendLine({ cost_usd: 0.42, tokens: 10, agent_ms: 0 }, { max_cost_usd: 5 })).toBe('$0.42 of $5');
    expect(spendLine(undefined, { max_tokens: 5000, max_agent_seconds: 60 })).toBe(
      '0 of 5000 tokens · 0s of 60s agent time',
    );
    expect(spendLine({ cost_usd: 0.5, tokens: 10, agent_ms: 0 }, undefined)).toBe('$0.50 · 10 tokens');
    expect(spendLine(undefined, undefined)).toBeUndefined();
  });
});

describe('the loop format', () => {
  it.each([
    [{ budget: { max_cost_usd: -1 } }, 'budget.max_cost_usd'],
    [{ budget: { max_tokens: 'lots' } }, 'budget.max_tokens'],
    [{ budget: { max_tokens: 1.5 } }, 'budget.max_tokens'],
    [{ budget: { max_dollars: 3 } }, 'budget'],
  ])('rejects a bad budget %j', (extra, where) => {
    const result = validateLoop(loop({ a: { action: 'x', next: 'done' } }, extra));
    expect(result.definition).toBeUndefined();
    expect(result.diagnostics.some((d) => d.severity === 'error' && d.path.join('.').startsWith(where))).toBe(true);
  });

  it('ll-loop validate names the file and line of a negative or non-numeric budget', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'll-budget-'));
    try {
      const file = join(dir, 'b.yaml');
      writeFileSync(
        file,
        'name: b\ninitial: a\nbudget:\n  max_cost_usd: -1\nstates:\n  a:\n    action: echo\n    next: done\n    budget: { max_tokens: lots }\n  done: { terminal: true }\n',
      );
      const r = await runCliInProcess(['validate', file], { cwd: dir });
      expect(r.code).toBe(1);
      // Named relative to where the command was started.
      expect(r.stdout + r.stderr).toContain(
        `${relative(dir, file)}:4:3: error: budget.max_cost_usd: Too small: expected number to be >0 (got -1)`,
      );
      expect(r.stdout + r.stderr).toMatch(
        new RegExp(
          `${relative(dir, file)}:9:\\d+: error: state "a": states\\.a\\.budget\\.max_tokens: Invalid input: expected number, received string`,
        ),
      );
      expect(r.stdout + r.stderr).not.toMatch(/^\s+at /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts budget and on_budget on a state; on_budget must name a state and is not a way out', () => {
    expect(
      validateLoop(loop({ a: { action: '/fix', next: 'done', budget: { max_agent_seconds: 30 }, on_budget: 'done' } }))
        .definition,
    ).toBeDefined();
    const missing = validateLoop(loop({ a: { action: '/fix', next: 'done', on_budget: 'nowhere' } }));
    expect(missing.diagnostics.some((d) => d.severity === 'error' && d.path.includes('on_budget'))).toBe(true);
    const noWayOut = validateLoop(loop({ a: { action: '/fix', on_budget: 'done' } }));
    expect(noWayOut.diagnostics.some((d) => d.severity === 'error' && d.message.includes('no way out'))).toBe(true);
  });
});

describe('ll-loop show', () => {
  it('draws on_budget as a budget edge whichever routing the state uses', () => {
    const d = def(
      loop({
        a: { action: '/fix', next: 'b', on_budget: 'done' },
        b: { action: '/fix', route: { yes: 'done', _: 'a' }, on_budget: 'done' },
        c: { action: '/fix', on_yes: 'done', on_no: 'a', on_budget: 'done' },
      }),
    );
    expect(stateTransitions(d, d.states.a!)).toEqual([
      { label: 'next', target: 'b' },
      { label: 'budget', target: 'done' },
    ]);
    expect(stateTransitions(d, d.states.b!).map((t) => t.label)).toEqual(['yes', 'otherwise', 'budget']);
    expect(stateTransitions(d, d.states.c!).map((t) => t.label)).toEqual(['yes', 'no', 'budget']);
  });
});

describe('the human display', () => {
  it('says when a budget is spent, ends with the budget line and what was spent', () => {
    let text = '';
    const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
    const ts = '2026-11-23T00:00:00.000Z';
    for (const e of [
      { event: 'state_enter', state: 'fix', iteration: 3 },
      { event: 'action_start', state: 'fix', action: 'fix it' },
      { event: 'action_complete', state: 'fix', exit_code: 0, duration_ms: 5 },
      { event: 'budget_spent', state: 'fix', scope: 'loop', limit: 'max_cost_usd', spent: 5.031, max: 5 },
    ]) {
      reporter.onEvent({ ...e, ts, seq: 1 } as unknown as TimedEvent);
    }
    reporter.onResult(
      {
        loop: 'l',
        final_state: 'fix',
        iterations: 3,
        steps: 3,
        terminated_by: 'budget',
        failure: false,
        duration_ms: 1000,
        captured: {},
        error: 'budget spent in state "fix": $5.03 of max_cost_usd 5',
        spent: { cost_usd: 5.031, tokens: 4000, agent_ms: 9000 },
      },
      { instanceId: 'l-1' },
    );
    expect(text).toContain('⚠ budget spent: $5.03 of max_cost_usd 5\n');
    expect(text).toContain('Loop stopped: budget spent in state "fix": $5.03 of max_cost_usd 5 (3 iterations, 1.0s)\n');
    expect(text).toContain('spent: $5.03 · 4000 tokens\n');
  });
});

const usage = (cost: number, tokens = 100) => ({
  usage: { cost_usd: cost, input_tokens: tokens - 10, output_tokens: 10 },
});

describe('runs with a budget', () => {
  it('ends terminated_by budget once the spend reaches the loop budget', () => {
    const d = def(
      loop({ fix: { action: 'work', action_type: 'prompt', next: 'fix' } }, { budget: { max_cost_usd: 1 } }),
    );
    const run = drive(d, { actions: { fix: [{ ...usage(0.4) }] } });
    expect(run.entered).toEqual(['fix', 'fix', 'fix']);
    expect(run.result).toMatchObject({
      terminated_by: 'budget',
      final_state: 'fix',
      spent: { cost_usd: 1.2, tokens: 300, agent_ms: 15 },
    });
    expect(run.result.error).toBe('budget spent in state "fix": $1.20 of max_cost_usd 1');
    expect(eventsNamed(run, 'budget_spent')).toEqual([
      { event: 'budget_spent', state: 'fix', scope: 'loop', limit: 'max_cost_usd', spent: 1.2, max: 1 },
    ]);
    expect(run.final.spentByState).toEqual({ fix: { cost_usd: 1.2, tokens: 300, agent_ms: 15 } });
    expect(eventsNamed(run, 'loop_complete')[0]).toMatchObject({ terminated_by: 'budget', spent: { cost_usd: 1.2 } });
    expect(outcomeOf(run.result)).toBe('budget');
    expect(FAILED_OUTCOMES).toContain('budget');
    expect(closing(run.result)).toEqual({
      kind: 'fail',
      message: 'loop test-loop: budget spent in state "fix": $1.20 of max_cost_usd 1',
    });
  });

  it("routes on_budget when the state has it, keeping the call's output in prev", () => {
    const d = def(
      loop({
        fix: { action: 'work', action_type: 'prompt', next: 'fix', on_budget: 'report', budget: { max_tokens: 150 } },
        report: { action: 'echo ${prev.output}', next: 'done' },
      }),
    );
    const run = drive(d, { actions: { fix: [{ output: 'half done', ...usage(0, 100) }] } });
    expect(run.entered).toEqual(['fix', 'fix', 'report', 'done']);
    expect(eventsNamed(run, 'budget_spent')[0]).toMatchObject({
      state: 'fix',
      scope: 'state',
      limit: 'max_tokens',
      spent: 200,
      max: 150,
    });
    expect(run.result.terminated_by).toBe('terminal');
    expect(run.actions[2]?.shell?.vars).toEqual({ LL_V1: 'half done' });
  });

  it('spends on the run without a budget, but never checks (old runs decide as before)', () => {
    const d = def(loop({ fix: { action: 'work', action_type: 'prompt', next: 'done' } }));
    const run = drive(d, { actions: { fix: [{ ...usage(99) }] } });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', spent: { cost_usd: 99 } });
    expect(eventsNamed(run, 'budget_spent')).toEqual([]);
    const quiet = drive(d, { actions: { fix: [{}] } });
    expect(quiet.result).not.toHaveProperty('spent');
    expect(quiet.final).not.toHaveProperty('spent');
  });

  it("agent time is the call's reported duration, else the prompt action's", () => {
    const d = def(
      loop({ fix: { action: 'work', action_type: 'prompt', next: 'fix' } }, { budget: { max_agent_seconds: 1 } }),
    );
    const run = drive(d, {
      actions: {
        fix: [
          { duration_ms: 400, usage: { duration_ms: 600 } },
          { duration_ms: 500, usage: { output_tokens: 1 } },
        ],
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'budget', spent: { agent_ms: 1100 } });
  });

  it('a prompt whose host CLI reports no usage still spends its time (max_agent_seconds holds for any host CLI)', () => {
    const d = def(
      loop({ fix: { action: 'work', action_type: 'prompt', next: 'fix' } }, { budget: { max_agent_seconds: 1 } }),
    );
    const run = drive(d, { actions: { fix: [{ duration_ms: 700 }, { duration_ms: 700 }] } });
    expect(run.result).toMatchObject({ terminated_by: 'budget', spent: { agent_ms: 1400, tokens: 0, cost_usd: 0 } });
  });

  it('a shell action spends nothing', () => {
    const d = def(
      loop({ build: { action: 'make', next: 'build' } }, { budget: { max_agent_seconds: 1 }, max_steps: 5 }),
    );
    const run = drive(d, { actions: { build: [{ duration_ms: 700 }] } });
    expect(run.result.terminated_by).toBe('max_steps');
    expect(run.final).not.toHaveProperty('spent');
  });

  it("a terminal state's call is charged but ends the run as a terminal", () => {
    const d = def({
      name: 't',
      initial: 'end',
      budget: { max_cost_usd: 1 },
      states: { end: { action: 'sum up', action_type: 'prompt', terminal: true } },
    });
    const run = drive(d, { actions: { end: [{ ...usage(5) }] } });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', spent: { cost_usd: 5 } });
  });

  it("an LLM evaluation's usage is charged; a spent budget wins over its verdict", () => {
    const judged = def(
      loop(
        { fix: { action: 'work', evaluate: { type: 'llm_structured' }, on_yes: 'done', on_no: 'fix' } },
        { budget: { max_cost_usd: 0.5 } },
      ),
    );
    let out: Transition = begin(judged);
    out = next(judged, out, {
      type: 'action_done',
      result: { output: 'ok', stderr: '', exit_code: 0, duration_ms: 5 },
      now: 10,
    });
    expect(out.effect.type).toBe('evaluate_llm');
    const reply: RunEvent = {
      type: 'llm_replied',
      judgement: { verdict: 'no', confidence: 0.9, reason: 'r', raw: {} },
      usage: { cost_usd: 0.3 },
      now: 20,
    };
    out = next(judged, out, reply);
    expect(out.effect.type).toBe('run_action');
    expect(out.snapshot.spent).toEqual({ cost_usd: 0.3, tokens: 0, agent_ms: 0 });
    out = next(judged, out, {
      type: 'action_done',
      result: { output: 'ok', stderr: '', exit_code: 0, duration_ms: 5 },
      now: 30,
    });
    out = next(judged, out, { ...reply, judgement: { ...reply.judgement, verdict: 'yes' }, now: 40 } as RunEvent);
    expect(out.effect).toMatchObject({ type: 'finish', result: { terminated_by: 'budget', final_state: 'fix' } });
    expect(out.events.map((e) => e.event)).toEqual(['budget_spent', 'loop_complete']);
  });

  it('an answer that missed its schema is not asked again once its cost spent the budget', () => {
    const d = def(
      loop(
        { fix: { action: 'work', evaluate: { type: 'llm_structured' }, on_yes: 'done', on_no: 'fix' } },
        { budget: { max_cost_usd: 0.5 } },
      ),
    );
    let out: Transition = begin(d);
    out = next(d, out, {
      type: 'action_done',
      result: { output: 'ok', stderr: '', exit_code: 0, duration_ms: 5 },
      now: 10,
    });
    const invalid: RunEvent = {
      type: 'llm_invalid',
      invalid: { errors: ['verdict is missing'], answer: {} },
      usage: { cost_usd: 0.2 },
      now: 20,
    };
    out = next(d, out, invalid);
    expect(out.effect.type).toBe('evaluate_llm');
    expect(out.events.map((e) => e.event)).toEqual(['llm_reask']);
    out = next(d, out, { ...invalid, usage: { cost_usd: 0.3 }, now: 30 } as RunEvent);
    expect(out.effect).toMatchObject({ type: 'finish', result: { terminated_by: 'budget', spent: { cost_usd: 0.5 } } });
    expect(out.snapshot).not.toHaveProperty('schemaAsks');
  });

  it('does not start a provider evaluation the tokens left cannot cover (its max_tokens)', () => {
    const d = def(
      loop(
        {
          fix: {
            action: 'work',
            evaluate: { type: 'llm_structured' },
            on_yes: 'done',
            on_no: 'fix',
            on_budget: 'stop',
          },
          stop: { action: 'echo out of tokens', next: 'done' },
        },
        { budget: { max_tokens: 1000 }, llm: { provider: 'anthropic', model: 'm', max_tokens: 300 } },
      ),
    );
    let out: Transition = begin(d);
    out = next(d, out, {
      type: 'action_done',
      result: { output: 'ok', stderr: '', exit_code: 0, duration_ms: 5 },
      now: 10,
    });
    expect(out.effect.type).toBe('evaluate_llm');
    out = next(d, out, {
      type: 'llm_replied',
      judgement: { verdict: 'no', confidence: 0.9, reason: 'r', raw: {} },
      usage: { input_tokens: 600, output_tokens: 100 },
      now: 20,
    });
    out = next(d, out, {
      type: 'action_done',
      result: { output: 'ok', stderr: '', exit_code: 0, duration_ms: 5 },
      now: 30,
    });
    // 700 spent, 300 left: a call that may use 300 fits.
    expect(out.effect.type).toBe('evaluate_llm');
    out = next(d, out, {
      type: 'llm_replied',
      judgement: { verdict: 'no', confidence: 0.9, reason: 'r', raw: {} },
      usage: { input_tokens: 1, output_tokens: 0 },
      now: 40,
    });
    out = next(d, out, {
      type: 'action_done',
      result: { output: 'ok', stderr: '', exit_code: 0, duration_ms: 5 },
      now: 50,
    });
    // 701 spent, 299 left: not started; on_budget routes.
    expect(out.effect).toMatchObject({ type: 'run_action', input: { state: 'stop' } });
    expect(out.events.find((e) => e.event === 'budget_spent')).toMatchObject({
      state: 'fix',
      limit: 'max_tokens',
      spent: 701,
      max: 1000,
      needed: 300,
    });
  });

  it('does not start a prompt completion the tokens left cannot cover (its max_tokens)', () => {
    const d = def(
      loop(
        {
          write: {
            action: 'Write the summary',
            action_type: 'prompt',
            llm: { max_tokens: 500 },
            next: 'write',
            on_budget: 'stop',
          },
          stop: { action: 'echo out of tokens', next: 'done' },
        },
        { budget: { max_tokens: 1000 }, llm: { provider: 'anthropic', model: 'm' } },
      ),
    );
    let out: Transition = begin(d);
    expect(out.effect).toMatchObject({
      type: 'run_action',
      input: { kind: 'prompt', llm: { provider: 'anthropic', max_tokens: 500 } },
    });
    out = next(d, out, {
      type: 'action_done',
      result: {
        output: 'text',
        stderr: '',
        exit_code: 0,
        duration_ms: 5,
        usage: { input_tokens: 400, output_tokens: 150 },
      },
      now: 10,
    });
    // 550 spent, 450 left: the next completion may use 500, so it is not started.
    expect(out.effect).toMatchObject({ type: 'run_action', input: { state: 'stop' } });
    expect(out.events.find((e) => e.event === 'budget_spent')).toMatchObject({
      state: 'write',
      limit: 'max_tokens',
      spent: 550,
      max: 1000,
      needed: 500,
    });
    expect(out.events.filter((e) => e.event === 'action_start').map((e) => e.state)).toEqual(['stop']);
  });
});

describe('sub-loops and budgets', () => {
  const parent = def({
    name: 'parent',
    initial: 'child',
    budget: { max_cost_usd: 2, max_tokens: 10_000 },
    states: {
      child: { loop: 'kid', on_success: 'done', on_failure: 'done', on_error: 'done', on_budget: 'over' },
      done: { terminal: true },
      over: { terminal: true, failure: true },
    },
  });

  it("passes what is left of the parent's loop budget to the child", () => {
    const out = begin(parent);
    expect(out.effect).toMatchObject({
      type: 'run_loop',
      input: { loop: 'kid', budget: { max_cost_usd: 2, max_tokens: 10_000 } },
    });
    const none = begin(
      def({ name: 'p', initial: 'c', states: { c: { loop: 'kid', next: 'done' }, done: { terminal: true } } }),
    );
    expect(none.effect.type === 'run_loop' && 'budget' in none.effect.input).toBe(false);
  });

  it("a loop: state's own budget lowers what the child gets", () => {
    const d = def({
      name: 'p',
      initial: 'c',
      budget: { max_cost_usd: 2 },
      states: {
        c: { loop: 'kid', next: 'done', budget: { max_cost_usd: 0.5, max_tokens: 300 } },
        done: { terminal: true },
      },
    });
    expect(begin(d).effect).toMatchObject({
      type: 'run_loop',
      input: { budget: { max_cost_usd: 0.5, max_tokens: 300 } },
    });
    expect(
      childBudget(
        d,
        {
          spent: { cost_usd: 1.8, tokens: 0, agent_ms: 0 },
          spentByState: { c: { cost_usd: 0.1, tokens: 100, agent_ms: 0 } },
        },
        'c',
      ),
    ).toEqual({ max_cost_usd: 0.2, max_tokens: 200 });
  });

  it('a child spends from what it inherited, and reports what it spent', () => {
    const kid = def({
      name: 'kid',
      initial: 'work',
      budget: { max_cost_usd: 10 },
      states: { work: { action: 'do', action_type: 'prompt', on_yes: 'end', on_no: 'work' }, end: { terminal: true } },
      llm: { enabled: false },
    });
    let out = transition(kid, null, { type: 'start', now: 0, inherited: { budget: { max_cost_usd: 1.5 } } });
    expect(out.snapshot.inheritedBudget).toEqual({ max_cost_usd: 1.5 });
    for (let i = 1; out.effect.type !== 'finish' && i < 10; i += 1) {
      // exit 1: judged `no` by exit code (LLM evaluation disabled), so the child works on.
      out = next(kid, out, {
        type: 'action_done',
        result: { output: '', stderr: '', exit_code: 1, duration_ms: 5, ...usage(0.5) },
        now: i * 10,
      });
    }
    expect(out.effect).toMatchObject({ type: 'finish', result: { terminated_by: 'budget', spent: { cost_usd: 1.5 } } });
    const result = (out.effect as { result: ExecutionResult }).result;
    expect(subloopVerdict(result)).toBe('no');

    // The parent adds the child's spend to its own and to the loop: state's, and routes on_budget when spent.
    let p = begin(parent);
    p = next(parent, p, {
      type: 'subloop_done',
      result: { ...result, spent: { cost_usd: 2, tokens: 50, agent_ms: 10 } },
      timedOut: false,
      now: 100,
    });
    expect(p.snapshot).toMatchObject({ spent: { cost_usd: 2, tokens: 50 }, spentByState: { child: { cost_usd: 2 } } });
    expect(p.effect).toMatchObject({
      type: 'finish',
      result: { final_state: 'over', terminated_by: 'terminal', failure: true },
    });
    expect(p.events.find((e) => e.event === 'budget_spent')).toMatchObject({
      state: 'child',
      scope: 'loop',
      spent: 2,
      max: 2,
    });
  });

  it('a child that spent less routes by its verdict', () => {
    let p = begin(parent);
    const result: ExecutionResult = {
      loop: 'kid',
      final_state: 'end',
      iterations: 1,
      steps: 1,
      terminated_by: 'terminal',
      failure: false,
      duration_ms: 5,
      captured: {},
      spent: { cost_usd: 0.5, tokens: 5, agent_ms: 1 },
    };
    p = next(parent, p, { type: 'subloop_done', result, timedOut: false, now: 100 });
    expect(p.effect).toMatchObject({ type: 'finish', result: { final_state: 'done', spent: { cost_usd: 0.5 } } });
  });
});

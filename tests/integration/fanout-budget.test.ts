/**
 * A fan-out's items spend from their parent's budget (the `sharedBudget` rule) on the real dev
 * server: LLM evaluations answered by the fake Anthropic API state a cost per call. With the rule
 * the items spend from one ledger: once they together reach the budget, a running item makes no
 * further agent call and no further item starts; the join charges the sum and routes `on_budget`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ParallelItemResult } from '../../fsm/types.js';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';
import { closeTemporal, definition, project, runLoop, temporal, type RunOutcome } from './harness.js';

const KEY = { ANTHROPIC_API_KEY: 'sk-ant-fanout-budget' };
const api = useFakeLlmApi();
let savedAddress: string | undefined;
beforeAll(() => {
  savedAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
});
afterAll(async () => {
  await closeTemporal();
  if (savedAddress === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = savedAddress;
});

/**
 * Three branches under a budget of $1, two at a time: `once` spends $1 in one judgement; `gated`
 * waits for marks/go, then is judged `no` at $0.50 a call until its own budget is spent.
 */
function fanProject(): { cwd: string; go: string } {
  const p = project();
  mkdirSync(join(p.cwd, '.loops'));
  mkdirSync(join(p.cwd, 'marks'));
  const llm = (model: string) => `llm:\n  provider: anthropic\n  model: ${model}\n  base_url: ${api.url}\n`;
  writeFileSync(
    join(p.cwd, '.loops', 'once.yaml'),
    `name: once\ninitial: work\n${llm('verdict-yes+cost-1')}states:\n  work:\n    action: echo once\n    evaluate: { type: llm_structured }\n    on_yes: done\n    on_no: done\n  done: { terminal: true }\n`,
  );
  const go = join(p.cwd, 'marks', 'go');
  writeFileSync(
    join(p.cwd, '.loops', 'gated.yaml'),
    `name: gated\ninitial: wait\nmax_iterations: 10\n${llm('verdict-no+cost-0.5')}states:\n` +
      `  wait:\n    action: 'for i in $(seq 1200); do [ -f ${go} ] && exit 0; sleep 0.1; done; exit 1'\n    next: work\n` +
      `  work:\n    action: echo gated\n    evaluate: { type: llm_structured }\n    on_yes: done\n    on_no: work\n  done: { terminal: true }\n`,
  );
  return { cwd: p.cwd, go };
}

const fan = definition({
  name: 'fan-budget',
  initial: 'fan',
  budget: { max_cost_usd: 1 },
  states: {
    fan: {
      parallel: { branches: ['once', 'gated', 'once'], max_workers: 2 },
      on_yes: 'done',
      on_no: 'gave_up',
      on_budget: 'over',
    },
    done: { terminal: true },
    gave_up: { terminal: true, failure: true },
    over: { terminal: true, failure: true },
  },
});

function results(run: RunOutcome): ParallelItemResult[] {
  return (run.result.captured['fan'] as unknown as { results: ParallelItemResult[] }).results;
}

/** Poll `check` until it holds (a generous deadline: the machine may be loaded). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Whether the run `id` has been signalled `name` (its history says so). */
async function signalled(id: string, name: string): Promise<boolean> {
  const { client } = await temporal();
  try {
    const history = await client.workflow.getHandle(id).fetchHistory();
    return (history.events ?? []).some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === name);
  } catch {
    return false;
  }
}

describe('a fan-out under a budget', () => {
  it('with sharedBudget its items spend from one ledger: a running item makes no further call, no further item starts, on_budget routes', async () => {
    const p = fanProject();
    const run = await runLoop(fan, {
      cwd: p.cwd,
      env: KEY,
      sharedBudget: true,
      // `gated` is let go only once the parent told it the budget is spent.
      onStarted: async (id) => {
        try {
          await until('the budget-spent signal', () => signalled(`${id}.fan.1.1`, 'fanoutBudgetSpent'));
        } finally {
          writeFileSync(p.go, '');
        }
      },
    });
    expect(existsSync(p.go)).toBe(true);
    const items = results(run);
    // `once` spent the whole $1; `gated` made no call; the third never started.
    expect(items.map((r) => [r.outcome, r.terminated_by])).toEqual([
      ['no', 'budget'],
      ['no', 'budget'],
      ['skipped', undefined],
    ]);
    expect(items[0]!.spent).toMatchObject({ cost_usd: 1 });
    expect(items[1]!.spent).toBeUndefined();
    expect(items[2]!.error).toBe("not started: the fan-out's budget was spent");
    expect(run.result).toMatchObject({ final_state: 'over', failure: true, spent: { cost_usd: 1 } });
    expect(run.events.find((e) => e.event === 'budget_spent')).toMatchObject({
      state: 'fan',
      scope: 'loop',
      limit: 'max_cost_usd',
      spent: 1,
      max: 1,
    });
    // `gated`'s own end says why: the fan-out's budget, before its first call.
    const { client } = await temporal();
    const gated = (await client.workflow
      .getHandle(`${run.workflowId}.fan.1.1`)
      .result()
      .catch((e: unknown) => e)) as {
      cause?: { details?: Array<{ error?: string }> };
    };
    expect(gated.cause?.details?.[0]?.error).toBe('budget spent in state "work": $1 of max_cost_usd 1');
  }, 120_000);
});

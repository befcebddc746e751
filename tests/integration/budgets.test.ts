/**
 * Budgets (issue 13 §2) on the real dev server: LLM evaluations answered by an API provider (a
 * fake server speaking the Anthropic wire format, its usage stating tokens and a cost per call)
 * spend from `budget:`; the run ends `terminated_by: budget` (exit 3 through `ll-loop run`),
 * routes `on_budget`, a sub-loop spends from its parent's budget, the spend survives
 * continue-as-new, and `status`/`history` show it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { historyCommand } from '../../client/commands/history.js';
import { statusCommand } from '../../client/commands/status.js';
import { runStatus } from '../../runs/find/status-report.js';
import { EXIT } from '../../errors/exit-codes.js';
import { statusQuery } from '../../workflows/definitions.js';
import { runCliInProcess } from '../support/cli.js';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

/** Each call of the fake Anthropic API uses 120 + 15 tokens. */
const TOKENS_PER_CALL = 135;
const KEY = { ANTHROPIC_API_KEY: 'sk-ant-budget-test' };

const api = useFakeLlmApi();
let savedAddress: string | undefined;
beforeAll(async () => {
  savedAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
});
afterAll(async () => {
  await closeTemporal();
  if (savedAddress === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = savedAddress;
});

/** A loop that works, is judged `no` by the fake API at `cost` a call, and works again. */
function spendy(
  extra: Record<string, unknown>,
  cost = 0.4,
  work: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: 'spendy',
    description: 'spends on every judgement',
    initial: 'work',
    max_iterations: 40,
    llm: { provider: 'anthropic', model: `verdict-no+cost-${cost}`, base_url: api.url },
    states: {
      work: { action: 'echo working', evaluate: { type: 'llm_structured' }, on_yes: 'done', on_no: 'work', ...work },
      done: { terminal: true },
      report: { action: 'echo spent', next: 'done' },
    },
    ...extra,
  };
}

describe('budgets', () => {
  it('ends terminated_by budget once the cost the provider states reaches max_cost_usd; status and history show the spend', async () => {
    const p = project();
    const run = await runLoop(definition(spendy({ budget: { max_cost_usd: 1 } })), { cwd: p.cwd, env: KEY });
    expect(run.result).toMatchObject({
      terminated_by: 'budget',
      final_state: 'work',
      iterations: 3,
      spent: { cost_usd: 1.2, tokens: 3 * TOKENS_PER_CALL },
    });
    expect(run.result.error).toBe('budget spent in state "work": $1.20 of max_cost_usd 1');
    expect(run.events.filter((e) => e.event === 'budget_spent')).toEqual([
      expect.objectContaining({ state: 'work', scope: 'loop', limit: 'max_cost_usd', spent: 1.2, max: 1 }),
    ]);
    // Agent time is each provider call's wall time on the worker: within the run's own time.
    expect(run.snapshot?.spentByState).toEqual({
      work: { cost_usd: 1.2, tokens: 3 * TOKENS_PER_CALL, agent_ms: expect.any(Number) },
    });
    expect(run.snapshot!.spentByState!['work']!.agent_ms).toBeLessThanOrEqual(run.result.duration_ms);

    // Closed as Failed with the budget outcome: `list --failed` finds it by LoopStatus.
    const { client } = await temporal();
    const described = await client.workflow.getHandle(run.workflowId).describe();
    expect(described.status.name).toBe('FAILED');
    expect(described.searchAttributes['LoopStatus']).toEqual(['budget']);

    const report = await runStatus(p.cwd, run.workflowId);
    expect(report.result).toMatchObject({ terminated_by: 'budget', spent: { cost_usd: 1.2 } });
    const chunks: string[] = [];
    expect(await historyCommand({ cwd: p.cwd, loop: 'spendy', json: false, out: (t) => void chunks.push(t) })).toBe(
      EXIT.ok,
    );
    const listing = chunks.join('');
    expect(listing).toContain('SPENT');
    expect(listing).toMatch(new RegExp(`${run.workflowId}.*budget \\(work\\).*\\$1\\.20 · 405 tokens`));
  });

  it('status shows the spend of a running run: the status query, ll-loop status and the Web UI details', async () => {
    const p = project();
    const release = join(p.cwd, 'release');
    const raw = spendy({ budget: { max_cost_usd: 5 } }, 0.42, { on_no: 'wait' });
    const states = raw.states as Record<string, unknown>;
    states.wait = {
      action: `for i in $(seq 600); do [ -f ${release} ] && exit 0; sleep 0.1; done; exit 1`,
      next: 'done',
    };
    delete states.report;
    const def = definition(raw);
    const seen: { query?: unknown; text?: string; details?: string } = {};
    const run = await runLoop(def, {
      cwd: p.cwd,
      env: KEY,
      onStarted: async (workflowId) => {
        const { client } = await temporal();
        const handle = client.workflow.getHandle(workflowId);
        try {
          const deadline = Date.now() + 30_000;
          while (Date.now() < deadline) {
            const status = await handle.query(statusQuery);
            if (status.state === 'wait') {
              seen.query = status;
              break;
            }
            await new Promise((r) => setTimeout(r, 100));
          }
          const chunks: string[] = [];
          await statusCommand({ cwd: p.cwd, target: workflowId, json: false, out: (t) => void chunks.push(t) });
          seen.text = chunks.join('');
          const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
          seen.details = metadata.currentDetails;
        } finally {
          writeFileSync(release, '');
        }
      },
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', spent: { cost_usd: 0.42 } });
    expect(seen.query).toMatchObject({
      spent: { cost_usd: 0.42, tokens: TOKENS_PER_CALL },
      budget: { max_cost_usd: 5 },
    });
    expect(seen.text).toMatch(/spent:\s+\$0\.42 of \$5\n/);
    expect(seen.details).toBe('**wait** · pass 1/40 · action · last verdict no · $0.42 of $5');
  });

  it('routes on_budget when the state has it (its own max_tokens)', async () => {
    const p = project();
    const raw = spendy({}, 0.01, { budget: { max_tokens: 2 * TOKENS_PER_CALL }, on_budget: 'report' });
    // Each evaluation may use up to 100 tokens: the second fits in the 135 left, and spends the state's budget.
    const def = definition({ ...raw, llm: { ...(raw.llm as object), max_tokens: 100 } });
    const run = await runLoop(def, { cwd: p.cwd, env: KEY });
    expect(run.states).toEqual(['work', 'work', 'report', 'done']);
    expect(run.result).toMatchObject({
      terminated_by: 'terminal',
      final_state: 'done',
      spent: { tokens: 2 * TOKENS_PER_CALL, cost_usd: 0.02 },
    });
    expect(run.events.find((e) => e.event === 'budget_spent')).toMatchObject({
      state: 'work',
      scope: 'state',
      limit: 'max_tokens',
      spent: 270,
      max: 270,
    });
  });

  it('does not start an evaluation whose max_tokens the tokens left cannot cover', async () => {
    const p = project();
    const def = definition(spendy({ budget: { max_tokens: 600 } }, 0));
    const run = await runLoop(def, { cwd: p.cwd, env: KEY });
    // After 3 calls (405 tokens) 195 are left: a call that may use up to 256 (llm.max_tokens) is not made.
    expect(run.result).toMatchObject({ terminated_by: 'budget', spent: { tokens: 405 } });
    expect(run.result.error).toContain('cannot cover the next agent call in state "work": it may use up to 256 tokens');
    expect(run.events.find((e) => e.event === 'budget_spent')).toMatchObject({
      state: 'work',
      limit: 'max_tokens',
      spent: 405,
      max: 600,
      needed: 256,
    });
  });

  it("a sub-loop spends from its parent's budget; the parent adds what it spent and routes on_budget", async () => {
    const p = project();
    mkdirSync(join(p.cwd, '.loops'));
    // The child has no budget of its own: it gets what its parent has left.
    writeFileSync(
      join(p.cwd, '.loops', 'kid.yaml'),
      `name: kid\ninitial: work\nllm:\n  provider: anthropic\n  model: verdict-no+cost-0.25\n  base_url: ${api.url}\nstates:\n  work:\n    action: echo kid\n    evaluate: { type: llm_structured }\n    on_yes: done\n    on_no: work\n  done: { terminal: true }\n`,
    );
    const parent = definition({
      name: 'parent',
      initial: 'child',
      budget: { max_cost_usd: 0.6 },
      states: {
        child: { loop: 'kid', on_success: 'done', on_failure: 'done', on_error: 'done', on_budget: 'over' },
        done: { terminal: true },
        over: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(parent, { cwd: p.cwd, env: KEY });
    const kidEnd = run.childEvents.find((e) => e.event === 'loop_complete');
    expect(kidEnd).toMatchObject({ terminated_by: 'budget', spent: { cost_usd: 0.75 } });
    expect(run.result).toMatchObject({
      final_state: 'over',
      failure: true,
      spent: { cost_usd: 0.75, tokens: 3 * TOKENS_PER_CALL },
    });
    // Agent time is each provider call's wall time on the worker: within the run's own time.
    expect(run.snapshot?.spentByState).toEqual({
      child: { cost_usd: 0.75, tokens: 3 * TOKENS_PER_CALL, agent_ms: expect.any(Number) },
    });
    expect(run.snapshot!.spentByState!['child']!.agent_ms).toBeLessThanOrEqual(run.result.duration_ms);
    expect(run.events.find((e) => e.event === 'subloop_start')).toBeDefined();
    expect(run.events.find((e) => e.event === 'budget_spent')).toMatchObject({
      state: 'child',
      scope: 'loop',
      spent: 0.75,
      max: 0.6,
    });
  });

  it('the spend survives continue-as-new', async () => {
    const p = project();
    const def = definition(spendy({ budget: { max_cost_usd: 0.8 } }, 0.1));
    const run = await runLoop(def, { cwd: p.cwd, env: KEY, historyEventLimit: 40 });
    expect(run.result).toMatchObject({
      terminated_by: 'budget',
      iterations: 8,
      spent: { cost_usd: 0.8, tokens: 8 * TOKENS_PER_CALL },
    });
    const { client } = await temporal();
    const runs = [];
    for await (const w of client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) runs.push(w.runId);
    expect(runs.length).toBeGreaterThan(1);
  });

  it('ll-loop run exits 3 when the budget is spent, saying so', async () => {
    const p = project();
    mkdirSync(join(p.cwd, '.loops'));
    writeFileSync(
      join(p.cwd, '.loops', 'spendy.yaml'),
      `name: spendy\ndescription: spends\ninitial: work\nbudget:\n  max_cost_usd: 0.5\nllm:\n  provider: anthropic\n  model: verdict-no+cost-0.3\n  base_url: ${api.url}\nstates:\n  work:\n    action: echo working\n    evaluate: { type: llm_structured }\n    on_yes: done\n    on_no: work\n  done: { terminal: true }\n`,
    );
    const saved = process.env.ANTHROPIC_API_KEY;
    // The checkout's worker (spawned by `run`) reads the key from the environment it starts with.
    process.env.ANTHROPIC_API_KEY = KEY.ANTHROPIC_API_KEY;
    try {
      const r = await runCliInProcess(['run', 'spendy'], { cwd: p.cwd });
      expect(r.code, r.stderr).toBe(EXIT.limit);
      expect(r.stdout).toContain('budget spent: $0.60 of max_cost_usd 0.5');
      expect(r.stdout).toContain('Loop stopped: budget spent in state "work": $0.60 of max_cost_usd 0.5');
      expect(r.stdout).toContain('spent: $0.60 · 270 tokens');
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
      await runCliInProcess(['worker', 'stop'], { cwd: p.cwd });
      rmSync(p.cwd, { recursive: true, force: true });
    }
  });
});

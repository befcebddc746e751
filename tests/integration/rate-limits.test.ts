/**
 * Rate limits and spent quotas pause a real run (issue 13 §1): the host CLI (a scripted fake)
 * answers with Claude Code's messages; the workflow sleeps on a durable timer, shows
 * `rate_limited` in its status and search attributes, and runs the same call again — or is
 * stopped at once while it waits.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineSearchAttributeKey } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';
import { statusQuery, type LoopStatus } from '../../workflows/definitions.js';
import { closeTemporal, definition, project, runLoop, script, temporal, toolEnv } from './harness.js';

afterAll(closeTemporal);

const LIMIT_429 =
  'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}} retry-after: 1';
const calls = (toolsDir: string, tool: string) =>
  readFileSync(join(toolsDir, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { tool: string })
    .filter((c) => c.tool === tool).length;

const agentLoop = (extra: Record<string, unknown> = {}) =>
  definition({
    name: 'agent-fix',
    initial: 'fix',
    states: {
      fix: {
        action: 'Fix the failing test',
        action_type: 'prompt',
        capture: 'fixed',
        evaluate: { type: 'exit_code' },
        on_yes: 'done',
        on_no: 'failed',
        on_error: 'failed',
      },
      done: { terminal: true },
      failed: { terminal: true, failure: true },
    },
    ...extra,
  });

describe('a rate-limited prompt action', () => {
  it('pauses, then runs the same action again: not a step, a verdict or a capture', async () => {
    const p = project(['agent']);
    script(p.toolsDir, 'agent', [
      [1, LIMIT_429],
      [0, 'fixed it'],
    ]);
    const run = await runLoop(agentLoop(), {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: 'agent' }),
      pauseOnRateLimit: true,
    });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false, iterations: 1 });
    expect(run.result.captured.fixed).toMatchObject({ output: 'fixed it', exit_code: 0 });
    expect(calls(p.toolsDir, 'agent')).toBe(2);
    const limited = run.events.find((e) => e.event === 'rate_limited');
    expect(limited).toMatchObject({ state: 'fix', source: 'action', kind: 'rate_limit', pause: 1 });
    expect(Number(limited!.wait_ms)).toBeGreaterThanOrEqual(1000);
    expect(String(limited!.message)).toContain('API Error: 429');
    // One verdict only (the real answer), two action starts, one step for `fix`.
    expect(run.events.filter((e) => e.event === 'evaluate').map((e) => e.verdict)).toEqual(['yes']);
    expect(run.events.filter((e) => e.event === 'action_start' && e.state === 'fix')).toHaveLength(2);
    expect(run.snapshot?.steps).toBe(2);
    expect(run.snapshot).not.toHaveProperty('rateLimit');
    // The Web UI lists the pause's timer by what it is for.
    const { client } = await temporal();
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    const timers = (history.events ?? []).filter((e) => e.timerStartedEventAttributes);
    expect(timers).toHaveLength(1);
    const summary = timers[0]!.userMetadata?.summary?.data;
    expect(summary && JSON.parse(Buffer.from(summary).toString('utf8'))).toBe(
      `fix: rate limited until ${String(limited!.resumes_at)}`,
    );
  });

  it('a quota announced to reset past llm.rate_limit.max_wait is an error verdict at once, naming the reset', async () => {
    const p = project(['agent']);
    const resets = Math.floor(Date.now() / 1000) + 2 * 3600;
    script(p.toolsDir, 'agent', [[1, `Claude AI usage limit reached|${resets}`]]);
    const run = await runLoop(agentLoop({ llm: { rate_limit: { max_wait: '1h' } } }), {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: 'agent' }),
      pauseOnRateLimit: true,
    });
    expect(run.result).toMatchObject({ final_state: 'failed' });
    const evaluated = run.events.find((e) => e.event === 'evaluate');
    expect(evaluated).toMatchObject({ state: 'fix', verdict: 'error' });
    expect(String(evaluated!.error)).toContain(
      `it resets at ${new Date(resets * 1000).toISOString()}, past llm.rate_limit.max_wait (1h 0m)`,
    );
    expect(calls(p.toolsDir, 'agent')).toBe(1);
  });

  it('shows rate_limited with its resume time in status and LoopStatus, and stops at once', async () => {
    const p = project(['agent']);
    const resets = Math.floor(Date.now() / 1000) + 3600;
    script(p.toolsDir, 'agent', [[1, `Claude AI usage limit reached|${resets}`]]);
    const { client } = await temporal();
    let status: LoopStatus | undefined;
    let attribute: unknown;
    let stoppedAt = 0;
    const run = await runLoop(agentLoop(), {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: 'agent' }),
      pauseOnRateLimit: true,
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        for (let i = 0; i < 200; i += 1) {
          status = await handle.query(statusQuery);
          if (status.phase === 'rate_limited') break;
          await new Promise((r) => setTimeout(r, 100));
        }
        for (let i = 0; i < 100; i += 1) {
          const described = await handle.describe();
          attribute = described.typedSearchAttributes.get(defineSearchAttributeKey('LoopStatus', 'KEYWORD'));
          if (attribute === 'rate_limited') break;
          await new Promise((r) => setTimeout(r, 100));
        }
        stoppedAt = Date.now();
        await handle.cancel();
      },
    });
    expect(status).toMatchObject({
      phase: 'rate_limited',
      state: 'fix',
      rate_limited: {
        source: 'action',
        kind: 'quota',
        pauses: 1,
        resumes_at: new Date(resets * 1000 + 60_000).toISOString(),
      },
    });
    expect(attribute).toBe('rate_limited');
    expect(run.result).toMatchObject({ terminated_by: 'cancelled', final_state: 'fix' });
    // Stopped while it waited an hour: it ended without waiting for the timer.
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
  });
});

describe('a rate-limited LLM evaluation', () => {
  it('pauses holding the action’s output, then is asked again and routes on the answer', async () => {
    const p = project(['judge']);
    const envelope = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      structured_output: { verdict: 'yes', confidence: 0.9, reason: 'looks fixed' },
    });
    // Headless claude -p reports an API rate limit with exit 0 and is_error (anthropics/claude-code#79500).
    const limited = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: true,
      result: 'API Error: Rate limit reached',
    });
    script(p.toolsDir, 'judge', [
      [0, limited],
      [0, envelope],
    ]);
    const def = definition({
      name: 'judged',
      initial: 'check',
      llm: { rate_limit: { backoff: 1 } },
      states: {
        check: {
          action: 'echo built',
          evaluate: { type: 'llm_structured', prompt: 'Did it build?' },
          on_yes: 'done',
          on_no: 'failed',
          on_error: 'failed',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p, { LL_HOST_CLI: 'judge' }), pauseOnRateLimit: true });
    expect(run.result).toMatchObject({ final_state: 'done' });
    expect(run.events.find((e) => e.event === 'rate_limited')).toMatchObject({
      state: 'check',
      source: 'llm',
      kind: 'rate_limit',
    });
    expect(run.events.filter((e) => e.event === 'evaluate')).toHaveLength(1);
    expect(run.events.filter((e) => e.event === 'action_start')).toHaveLength(1);
    expect(calls(p.toolsDir, 'judge')).toBe(2);
  });
});

describe('an API provider’s 429', () => {
  const api = useFakeLlmApi();

  it('pauses an evaluation and a prompt state for its retry-after, then asks again', async () => {
    const p = project();
    const def = definition({
      name: 'provided',
      initial: 'ask',
      llm: { provider: 'anthropic', model: 'prose', base_url: api.url, api_key_env: 'FAKE_KEY' },
      states: {
        ask: {
          action: 'Summarise',
          action_type: 'prompt',
          llm: { model: 'limited-once-1:prose' },
          capture: 'summary',
          next: 'check',
        },
        check: {
          action: 'echo built',
          evaluate: { type: 'llm_structured', llm: { model: 'limited-once-1:verdict-yes' } },
          on_yes: 'done',
          on_no: 'failed',
          on_error: 'failed',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: { FAKE_KEY: 'k-123456' }, pauseOnRateLimit: true });
    expect(run.result).toMatchObject({ final_state: 'done' });
    expect(run.result.captured.summary?.output).toBe('I think it went fine.');
    const pauses = run.events.filter((e) => e.event === 'rate_limited');
    expect(pauses.map((e) => [e.state, e.source, e.kind])).toEqual([
      ['ask', 'action', 'rate_limit'],
      ['check', 'llm', 'rate_limit'],
    ]);
    for (const e of pauses) expect(Number(e.wait_ms)).toBeGreaterThanOrEqual(1000);
    expect(api.requests.filter((r) => String(r.body['model']).startsWith('limited-once-1:'))).toHaveLength(4);
  });
});

/**
 * Loops judged by API providers (issue 13 §3) on the real dev server: `llm:` points at a fake
 * server speaking the Anthropic Messages and OpenAI Chat Completions wire formats, the real
 * activity asks it through the official SDKs, and the verdicts route. The API key is read on the
 * worker and appears nowhere in the run's history or under `.loops/`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';
import { filesUnder, historyText } from '../support/leak-scan.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

const api = useFakeLlmApi();
afterAll(closeTemporal);

describe('LLM evaluations by API providers', () => {
  it('routes the verdicts of both providers; the keys stay out of history and .loops/', async () => {
    const p = project();
    const anthropicKey = `sk-ant-${Date.now()}-SECRET`;
    const openaiKey = `sk-oai-${Date.now()}-SECRET`;
    const def = definition({
      name: 'judged',
      initial: 'build',
      llm: { provider: 'anthropic', model: 'verdict-yes', base_url: api.url },
      states: {
        // Judged by the loop-level provider (anthropic): yes → lint.
        build: {
          action: 'echo built',
          evaluate: { type: 'llm_structured', prompt: 'Did it build?' },
          on_yes: 'lint',
          on_no: 'failed',
        },
        // Overrides provider, model, base_url and the key variable: no → done.
        lint: {
          action: 'echo lint ok',
          evaluate: {
            type: 'llm_structured',
            llm: {
              provider: 'openai-compatible',
              model: 'verdict-no',
              base_url: `${api.url}/v1`,
              api_key_env: 'MY_OAI_KEY',
            },
          },
          on_yes: 'failed',
          on_no: 'done',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const before = api.requests.length;
    const run = await runLoop(def, { cwd: p.cwd, env: { ANTHROPIC_API_KEY: anthropicKey, MY_OAI_KEY: openaiKey } });
    expect(run.states).toEqual(['build', 'lint', 'done']);
    const asked = api.requests.slice(before);
    expect(asked.map((r) => r.path)).toEqual(['/v1/messages', '/v1/chat/completions']);
    expect(JSON.stringify(asked[0]!.body)).toContain('Did it build?');
    expect(asked[1]!.headers['authorization']).toBe(`Bearer ${openaiKey}`);
    const evaluations = run.events.filter((e) => e.event === 'evaluate');
    expect(evaluations.map((e) => e['verdict'])).toEqual(['yes', 'no']);

    const history = await historyText((await temporal()).client, run.workflowId);
    expect(history).toContain('MY_OAI_KEY');
    expect(history).toContain('input_tokens');
    for (const key of [anthropicKey, openaiKey]) {
      expect(history).not.toContain(key);
      for (const f of filesUnder(join(p.cwd, '.loops'))) expect(readFileSync(f, 'utf8'), f).not.toContain(key);
    }
  });

  // A 429 pauses the run and asks again (rate-limits.test.ts, "an API provider's 429").
  it('garbage, an unreachable server and a missing key are error verdicts with their reasons', async () => {
    const p = project();
    const judged = (llm: Record<string, unknown>, next: string) => ({
      action: 'echo out',
      evaluate: { type: 'llm_structured', llm },
      on_error: next,
      on_yes: 'wrong',
      on_no: 'wrong',
    });
    const def = definition({
      name: 'failing-judges',
      initial: 'garbled',
      states: {
        garbled: judged(
          { provider: 'openai-compatible', model: 'garbage', base_url: `${api.url}/v1`, api_key_env: 'OAI' },
          'gone',
        ),
        gone: judged(
          { provider: 'openai-compatible', model: 'verdict-yes', base_url: 'http://127.0.0.1:9/v1' },
          'keyless',
        ),
        keyless: judged(
          { provider: 'anthropic', model: 'verdict-yes', base_url: api.url, api_key_env: 'NOT_SET_ANYWHERE' },
          'done',
        ),
        wrong: { terminal: true, failure: true },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: { ANTHROPIC_API_KEY: 'k-anthropic-1234', OAI: 'k-oai-1234' } });
    expect(run.states).toEqual(['garbled', 'gone', 'keyless', 'done']);
    const errors = run.events.filter((e) => e.event === 'evaluate').map((e) => e['details'] as Record<string, unknown>);
    expect(errors[0]).toMatchObject({
      error: expect.stringContaining('the answer is not a Chat Completions response'),
    });
    expect(errors[1]).toMatchObject({
      reason: 'unreachable',
      error: expect.stringContaining('cannot reach the server'),
    });
    expect(errors[2]).toMatchObject({
      api_key_env: 'NOT_SET_ANYWHERE',
      error: expect.stringContaining('NOT_SET_ANYWHERE is not set'),
    });
    for (const d of errors) expect(String(d['error'])).not.toMatch(/\n\s+at /);
  });
});

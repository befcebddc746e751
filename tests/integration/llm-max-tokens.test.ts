/**
 * `llm.max_tokens` reaches the API providers on a real workflow: the request each SDK sends (as
 * the fake API records it) states the loop's bound for an evaluation, an evaluation's own over
 * it, and for a prompt state's completion its own bound or 4096.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';
import { closeTemporal, definition, project, runLoop } from './harness.js';

const api = useFakeLlmApi();
afterAll(closeTemporal);

describe('llm.max_tokens bounds the calls to API providers', () => {
  it('evaluations: the loop bound, an evaluation overriding it; completions: their own, else 4096', async () => {
    const p = project();
    const openai = { provider: 'openai-compatible', base_url: `${api.url}/v1` };
    const def = definition({
      name: 'bounded',
      initial: 'judged',
      llm: { provider: 'anthropic', model: 'verdict-yes', base_url: api.url, max_tokens: 77 },
      states: {
        judged: { action: 'echo out', evaluate: { type: 'llm_structured' }, on_yes: 'judged_own', on_no: 'failed' },
        judged_own: {
          action: 'echo out',
          evaluate: { type: 'llm_structured', llm: { ...openai, model: 'verdict-yes', max_tokens: 55 } },
          on_yes: 'write',
          on_no: 'failed',
        },
        write: {
          action: 'Write a note',
          action_type: 'prompt',
          llm: { model: 'echo:a note' },
          evaluate: { type: 'exit_code' },
          on_yes: 'write_own',
          on_no: 'failed',
        },
        write_own: {
          action: 'Write a longer note',
          action_type: 'prompt',
          llm: { ...openai, model: 'echo:a longer note', max_tokens: 9000 },
          evaluate: { type: 'exit_code' },
          on_yes: 'done',
          on_no: 'failed',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const before = api.requests.length;
    const run = await runLoop(def, {
      cwd: p.cwd,
      env: { ANTHROPIC_API_KEY: 'k-anthropic-bound', OPENAI_API_KEY: 'k-openai-bound' },
    });
    expect(run.states).toEqual(['judged', 'judged_own', 'write', 'write_own', 'done']);
    const asked = api.requests.slice(before).map((r) => ({ path: r.path, max_tokens: r.body['max_tokens'] }));
    expect(asked).toEqual([
      { path: '/v1/messages', max_tokens: 77 },
      { path: '/v1/chat/completions', max_tokens: 55 },
      { path: '/v1/messages', max_tokens: 4096 },
      { path: '/v1/chat/completions', max_tokens: 9000 },
    ]);
  });
});

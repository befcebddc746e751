/**
 * Prompt states run by API providers (issue 13 §3) on the real dev server: `llm:` points at a
 * fake server speaking the Anthropic Messages and OpenAI Chat Completions wire formats; the real
 * activity asks each for a plain completion through its official SDK. The text is the action's
 * output (captured, routed on), usage is in the action's result, an unreachable base_url is an
 * `error` verdict naming the URL, and stopping the run while the call is out cancels it at once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { statusQuery } from '../../workflows/definitions.js';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

const api = useFakeLlmApi();
afterAll(closeTemporal);

/** The results of the run's runAction activities, as recorded in its history. */
async function actionResults(workflowId: string): Promise<Array<Record<string, unknown>>> {
  const { client } = await temporal();
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const out: Array<Record<string, unknown>> = [];
  for (const e of history.events ?? []) {
    const payload = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    if (payload) out.push(JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>);
  }
  return out;
}

describe('prompt states by API providers', () => {
  it('both providers: the completion text is the output, with usage; the state overrides the loop', async () => {
    const p = project();
    const def = definition({
      name: 'prompted',
      initial: 'draft',
      llm: { provider: 'anthropic', model: 'echo:drafted by anthropic', base_url: api.url },
      states: {
        draft: { action: 'Draft a note', action_type: 'prompt', capture: 'draft', next: 'polish' },
        polish: {
          action: 'Polish: ${captured.draft.output}',
          action_type: 'prompt',
          llm: {
            provider: 'openai-compatible',
            model: 'echo:polished by openai',
            base_url: `${api.url}/v1`,
            api_key_env: 'MY_OAI',
          },
          evaluate: { type: 'output_contains', pattern: 'polished by openai' },
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
      env: { ANTHROPIC_API_KEY: 'k-anthropic-prompt', MY_OAI: 'k-oai-prompt' },
    });
    expect(run.states).toEqual(['draft', 'polish', 'done']);
    expect(run.result.captured['draft']?.output).toBe('echo:drafted by anthropic');
    const asked = api.requests.slice(before);
    expect(asked.map((r) => r.path)).toEqual(['/v1/messages', '/v1/chat/completions']);
    expect(JSON.stringify(asked[1]!.body['messages'])).toContain('Polish: echo:drafted by anthropic');
    const results = await actionResults(run.workflowId);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({
      output: 'echo:drafted by anthropic',
      exit_code: 0,
      usage: { input_tokens: 120, output_tokens: 15 },
    });
    expect(results[1]).toMatchObject({
      output: 'echo:polished by openai',
      exit_code: 0,
      usage: { input_tokens: 130, output_tokens: 17 },
    });
  });

  it('an unreachable base_url is an error verdict naming the URL, no stack', async () => {
    const p = project();
    const def = definition({
      name: 'unreachable-prompt',
      initial: 'draft',
      states: {
        draft: {
          action: 'Draft',
          action_type: 'prompt',
          llm: { provider: 'openai-compatible', model: 'm', base_url: 'http://127.0.0.1:9/v1' },
          next: 'wrong',
          on_error: 'done',
        },
        wrong: { terminal: true, failure: true },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.states).toEqual(['draft', 'done']);
    const error = run.events.find((e) => e.event === 'action_error');
    expect(String(error?.['error'])).toContain(
      'LLM provider openai-compatible at http://127.0.0.1:9/v1: cannot reach the server',
    );
    expect(String(error?.['error'])).not.toMatch(/\n\s+at /);
  });

  it('stopping the run while the call is in flight cancels it at once', async () => {
    const p = project();
    const def = definition({
      name: 'stopped-prompt',
      initial: 'draft',
      states: {
        draft: {
          action: 'Draft',
          action_type: 'prompt',
          llm: { provider: 'anthropic', model: 'slow-60000', base_url: api.url },
          next: 'done',
        },
        done: { terminal: true },
      },
    });
    const { client } = await temporal();
    const closedBefore = api.closed();
    let cancelledAt = 0;
    const run = await runLoop(def, {
      cwd: p.cwd,
      env: { ANTHROPIC_API_KEY: 'k-anthropic-stop' },
      onStarted: async (id) => {
        const handle = client.workflow.getHandle(id);
        const requestsBefore = api.requests.length;
        for (let i = 0; i < 100 && api.requests.length === requestsBefore; i += 1)
          await new Promise((r) => setTimeout(r, 50));
        expect((await handle.query(statusQuery)).phase).toBe('action');
        cancelledAt = performance.now();
        await handle.cancel();
      },
    });
    const took = performance.now() - cancelledAt;
    expect(run.result).toMatchObject({ terminated_by: 'cancelled', final_state: 'draft' });
    // A heartbeat (1 s) carries the stop to the request; the fake answers after 60 s.
    expect(took).toBeLessThan(5000);
    expect(api.closed()).toBe(closedBefore + 1);
  });
});

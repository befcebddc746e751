/**
 * The API providers of LLM evaluations (issue 13 §3), through their official SDKs against a fake
 * server speaking each API's wire format: structured verdicts, usage, a 429 with retry-after, an
 * answer that is not JSON, an unreachable base_url, a missing key. No Temporal: the activity is
 * called as a plain function (the integration test runs it in loops).
 */
import { describe, expect, it } from 'vitest';
import { makeEvaluateLlm } from '../../activities/evaluate-llm.js';
import { retryAfterSeconds } from '../../activities/llm-provider-call.js';
import type { LlmProviderRequest } from '../../fsm/types.js';
import type { LlmReply } from '../../fsm/run/snapshot.js';
import { RETRY_AFTER_S } from '../support/fake-llm-api.js';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';

const api = useFakeLlmApi();

const KEY = 'sk-test-0123456789-secret';

function ask(
  provider: LlmProviderRequest['provider'],
  model: string,
  opts: { baseUrl?: string; env?: NodeJS.ProcessEnv; keyRequired?: boolean } = {},
): Promise<LlmReply> {
  const base = opts.baseUrl ?? (provider === 'anthropic' ? api.url : `${api.url}/v1`);
  const keyEnv = provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  const evaluate = makeEvaluateLlm({ env: opts.env ?? { [keyEnv]: KEY } });
  return evaluate({
    instanceId: 'unit-1',
    state: 'check',
    output: 'tests: 12 passed',
    prompt: 'Did the tests pass?',
    schema: {
      type: 'object',
      properties: {
        verdict: { type: 'string', enum: ['yes', 'no'] },
        confidence: { type: 'number' },
        reason: { type: 'string' },
      },
      required: ['verdict'],
    },
    min_confidence: 0.5,
    uncertain_suffix: false,
    cwd: '/nonexistent',
    timeout_s: 5,
    llm: {
      provider,
      model,
      base_url: base,
      api_key_env: keyEnv,
      key_required: opts.keyRequired ?? true,
      max_tokens: 256,
    },
  });
}

describe('anthropic provider (Messages API)', () => {
  it('asks with a forced tool whose input_schema is the schema, and reads the verdict and usage', async () => {
    const reply = await ask('anthropic', 'verdict-yes');
    expect(reply).toMatchObject({
      judgement: { verdict: 'yes', confidence: 0.9, reason: 'from the fake API' },
      usage: { input_tokens: 120, output_tokens: 15 },
    });
    const req = api.requests.at(-1)!;
    expect(req.path).toBe('/v1/messages');
    // The SDK authenticates with the key as `x-api-key` or as a bearer token, by version.
    expect([req.headers['x-api-key'], req.headers['authorization']]).toContain(
      req.headers['x-api-key'] === undefined ? `Bearer ${KEY}` : KEY,
    );
    expect(req.body).toMatchObject({ model: 'verdict-yes', max_tokens: 256, tool_choice: { type: 'tool' } });
    const tools = req.body['tools'] as Array<{ name: string; input_schema: { properties: Record<string, unknown> } }>;
    expect(tools[0]!.name).toBe((req.body['tool_choice'] as { name: string }).name);
    expect(tools[0]!.input_schema.properties['verdict']).toEqual({ type: 'string', enum: ['yes', 'no'] });
    expect(JSON.stringify(req.body['messages'])).toContain('tests: 12 passed');
  });

  it('a 429 is an error with retry_after in its details, without the SDK retrying', async () => {
    const before = api.requests.length;
    const reply = await ask('anthropic', 'rate-limited');
    expect(api.requests.length - before).toBe(1);
    expect(reply).toMatchObject({
      error: expect.stringContaining('rate limited (HTTP 429); retry after 42s'),
      details: { status: 429, reason: 'rate_limited', retry_after: RETRY_AFTER_S },
    });
  });

  it('an answer that is not a Messages API response, or not JSON, is a clear error', async () => {
    expect(await ask('anthropic', 'garbage')).toMatchObject({
      error: expect.stringMatching(
        /^LLM provider anthropic at http:\/\/127\.0\.0\.1:\d+: the answer is not a Messages API response/,
      ),
    });
    expect(await ask('anthropic', 'prose')).toMatchObject({
      error: expect.stringContaining('the answer is not JSON; answer: I think it went fine.'),
      usage: { input_tokens: 120 },
    });
  });
});

describe('openai-compatible provider (Chat Completions)', () => {
  it('asks with response_format json_schema and reads the verdict and usage', async () => {
    const reply = await ask('openai-compatible', 'verdict-no');
    expect(reply).toMatchObject({
      judgement: { verdict: 'no', confidence: 0.9 },
      usage: { input_tokens: 130, output_tokens: 17 },
    });
    const req = api.requests.at(-1)!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(req.body['response_format']).toMatchObject({
      type: 'json_schema',
      json_schema: { schema: { required: ['verdict'] } },
    });
  });

  it('a 429 is an error with retry_after; garbage and prose are clear errors', async () => {
    expect(await ask('openai-compatible', 'rate-limited')).toMatchObject({
      details: { status: 429, retry_after: RETRY_AFTER_S },
      error: expect.stringContaining('Rate limit reached for requests'),
    });
    expect(await ask('openai-compatible', 'garbage')).toMatchObject({
      error: expect.stringContaining('the answer is not a Chat Completions response'),
    });
    expect(await ask('openai-compatible', 'prose')).toMatchObject({
      error: expect.stringContaining('the answer is not JSON'),
    });
  });

  it('a local server without a key gets a placeholder; an unreachable base_url is a clear error', async () => {
    expect(await ask('openai-compatible', 'verdict-yes', { env: {}, keyRequired: false })).toMatchObject({
      judgement: { verdict: 'yes' },
    });
    expect(api.requests.at(-1)!.headers['authorization']).toBe('Bearer none');
    const reply = await ask('openai-compatible', 'verdict-yes', { baseUrl: 'http://127.0.0.1:9/v1' });
    expect(reply).toMatchObject({
      error: expect.stringContaining('cannot reach the server'),
      details: { reason: 'unreachable' },
    });
    expect(JSON.stringify(reply)).not.toMatch(/\n\s+at /);
  });
});

describe('keys', () => {
  it('a required key that is not set is an error naming the variable, and nothing is sent', async () => {
    const before = api.requests.length;
    const reply = await ask('anthropic', 'verdict-yes', { env: { OTHER: 'x' } });
    expect(reply).toEqual({
      error: 'LLM provider anthropic: the API key variable ANTHROPIC_API_KEY is not set on the worker',
      details: { provider: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' },
    });
    expect(api.requests.length).toBe(before);
  });

  it('the key never appears in a reply', async () => {
    for (const model of ['verdict-yes', 'rate-limited', 'garbage', 'prose']) {
      expect(JSON.stringify(await ask('anthropic', model))).not.toContain(KEY);
      expect(JSON.stringify(await ask('openai-compatible', model))).not.toContain(KEY);
    }
  });
});

describe('retry-after', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterSeconds('30')).toBe(30);
    expect(retryAfterSeconds('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(30);
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds(null)).toBeUndefined();
  });
});

describe('masking', () => {
  it("values of the loop's variables quoted back in an answer are masked", async () => {
    const secret = 'deploy-token-5678';
    const evaluate = makeEvaluateLlm({ env: { ANTHROPIC_API_KEY: KEY, DEPLOY: secret } });
    const reply = await evaluate({
      instanceId: 'unit-2',
      state: 'check',
      output: 'x',
      schema: {},
      min_confidence: 0.5,
      uncertain_suffix: false,
      cwd: '/nonexistent',
      timeout_s: 5,
      mask_env: ['DEPLOY'],
      llm: {
        provider: 'anthropic',
        model: `echo:${secret}`,
        base_url: api.url,
        api_key_env: 'ANTHROPIC_API_KEY',
        key_required: true,
        max_tokens: 10,
      },
    });
    expect(reply).toMatchObject({ error: expect.stringContaining('answer: echo:***') });
    expect(JSON.stringify(reply)).not.toContain(secret);
  });
});

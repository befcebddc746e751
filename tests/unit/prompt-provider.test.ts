/**
 * Prompt states as plain completions by the API providers (activities/prompt-provider.ts), through
 * the official SDKs against the fake server speaking each wire format: the text is the output,
 * usage comes back, failures are results naming the URL / the key variable, a stop aborts the
 * request at once; and providerRateLimit(), the one recogniser of rate limits and overload.
 */
import { describe, expect, it } from 'vitest';
import { providerRateLimit, ProviderError } from '../../activities/llm-provider-call.js';
import { askProvider } from '../../activities/llm-providers.js';
import { runPromptByProvider } from '../../activities/prompt-provider.js';
import { makeRunAction } from '../../activities/run-action.js';
import type { ApiProvider, LlmProviderRequest } from '../../fsm/types.js';
import type { RunActionInput } from '../../fsm/types.js';
import { RETRY_AFTER_S } from '../support/fake-llm-api.js';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';

const api = useFakeLlmApi();

const KEY = 'sk-prompt-0123456789-secret';
const KEY_ENV: Record<ApiProvider, string> = { anthropic: 'ANTHROPIC_API_KEY', 'openai-compatible': 'OPENAI_API_KEY' };

function request(provider: ApiProvider, model: string, baseUrl?: string): LlmProviderRequest {
  return {
    provider,
    model,
    base_url: baseUrl ?? (provider === 'anthropic' ? api.url : `${api.url}/v1`),
    api_key_env: KEY_ENV[provider],
    key_required: true,
    max_tokens: 4096,
  };
}

function input(llm: LlmProviderRequest, text = 'Write a haiku about '): RunActionInput & { llm: LlmProviderRequest } {
  return {
    instanceId: 'unit-p',
    state: 'write',
    step: 1,
    kind: 'prompt',
    prompt: { parts: [text, { name: 'LL_P_SECRET' }] },
    cwd: '/nonexistent',
    timeout_s: 5,
    llm,
  };
}

const env = (provider: ApiProvider): NodeJS.ProcessEnv => ({ [KEY_ENV[provider]]: KEY, LL_P_SECRET: 's3cret-value' });

describe.each(['anthropic', 'openai-compatible'] as const)('a prompt state by %s', (provider) => {
  it('runAction asks a plain completion: the text is the output, with usage', async () => {
    const before = api.requests.length;
    const r = await makeRunAction({ env: env(provider) })(input(request(provider, 'prose')));
    expect(r).toMatchObject({
      output: 'I think it went fine.',
      stderr: '',
      exit_code: 0,
      usage:
        provider === 'anthropic' ? { input_tokens: 120, output_tokens: 15 } : { input_tokens: 130, output_tokens: 17 },
    });
    expect(r.usage?.duration_ms).toBeGreaterThanOrEqual(0);
    const req = api.requests[before]!;
    // A plain completion: no tool, no response_format; the env value filled in on the worker.
    expect(req.body).not.toHaveProperty('tools');
    expect(req.body).not.toHaveProperty('response_format');
    expect(req.body).toMatchObject({ model: 'prose', max_tokens: 4096 });
    expect(JSON.stringify(req.body['messages'])).toContain('Write a haiku about s3cret-value');
  });

  it('an answer quoting a secret is masked', async () => {
    const r = await runPromptByProvider(
      input(request(provider, `echo:${KEY} and s3cret-value`)),
      env(provider),
      {},
      '/nonexistent/log',
    );
    expect(r.output).toBe('echo:*** and ***');
  });

  it('an unreachable base_url is a failed result naming the URL, no stack', async () => {
    const r = await runPromptByProvider(
      input(request(provider, 'prose', 'http://127.0.0.1:9/v1')),
      env(provider),
      {},
      '/nonexistent/log',
    );
    expect(r).toMatchObject({
      exit_code: 1,
      output: '',
      error: expect.stringContaining(`LLM provider ${provider} at http://127.0.0.1:9/v1: cannot reach the server`),
    });
    expect(r.stderr).toBe(r.error);
    expect(r.error).not.toMatch(/\n\s+at /);
  });

  it('a missing key names the variable, and nothing is sent', async () => {
    const before = api.requests.length;
    const r = await runPromptByProvider(
      input(request(provider, 'prose')),
      { LL_P_SECRET: 's3cret-value' },
      {},
      '/nonexistent/log',
    );
    expect(r).toMatchObject({
      exit_code: 1,
      error: `LLM provider ${provider}: the API key variable ${KEY_ENV[provider]} is not set on the worker`,
    });
    expect(api.requests.length).toBe(before);
  });

  it('an answer without text is a failed result saying so', async () => {
    const r = await runPromptByProvider(input(request(provider, 'no-text')), env(provider), {}, '/nonexistent/log');
    expect(r).toMatchObject({ exit_code: 1, error: expect.stringContaining('the answer holds no text') });
  });

  it('a stop aborts the request in flight at once', async () => {
    const abort = new AbortController();
    const closedBefore = api.closed();
    const started = performance.now();
    const pending = runPromptByProvider(
      input(request(provider, 'slow-20000')),
      env(provider),
      { signal: abort.signal },
      '/nonexistent/log',
    );
    setTimeout(() => abort.abort(new Error('stopped by the test')), 200);
    await expect(pending).rejects.toThrow('stopped by the test');
    expect(performance.now() - started).toBeLessThan(3000);
    await expect.poll(() => api.closed(), { timeout: 10_000 }).toBe(closedBefore + 1);
  });

  it("the state's timeout bounds the call", async () => {
    const r = await runPromptByProvider(
      { ...input(request(provider, 'slow-20000')), timeout_s: 1 },
      env(provider),
      {},
      '/nonexistent/log',
    );
    expect(r).toMatchObject({
      exit_code: 124,
      timed_out: true,
      error: expect.stringContaining("no answer before the timeout (the state's timeout, 1s)"),
    });
  });
});

describe('providerRateLimit: the one recogniser of rate limits and overload', () => {
  it.each(['anthropic', 'openai-compatible'] as const)(
    'a 429 of %s, from the error reply details',
    async (provider) => {
      const reply = await askProvider(
        { request: request(provider, 'rate-limited'), prompt: 'p', schema: { type: 'object' }, timeoutMs: 5000 },
        env(provider),
      );
      if (!('error' in reply)) throw new Error('expected an error reply');
      expect(providerRateLimit(reply.details)).toEqual({
        kind: 'rate_limit',
        message: expect.stringContaining('rate limited'),
        retry_after_ms: RETRY_AFTER_S * 1000,
      });
    },
  );

  it("anthropic's 529 overloaded_error is overload", async () => {
    const reply = await askProvider(
      { request: request('anthropic', 'overloaded'), prompt: 'p', schema: { type: 'object' }, timeoutMs: 5000 },
      env('anthropic'),
    );
    if (!('error' in reply)) throw new Error('expected an error reply');
    expect(reply.details).toMatchObject({ status: 529, error_type: 'overloaded_error' });
    expect(providerRateLimit(reply.details)).toMatchObject({ kind: 'overloaded' });
  });

  it('reads ProviderErrors and error types; anything else is not a rate limit', () => {
    expect(providerRateLimit(new ProviderError('slow down', { status: 400, error_type: 'rate_limit_error' }))).toEqual({
      kind: 'rate_limit',
      message: 'slow down',
    });
    expect(providerRateLimit({ status: 529, error: 'Overloaded' })).toEqual({
      kind: 'overloaded',
      message: 'Overloaded',
    });
    const sdkLike = Object.assign(new Error('429 {"type":"error"}'), {
      status: 429,
      headers: new Headers({ 'retry-after': '7' }),
      error: { type: 'error', error: { type: 'rate_limit_error' } },
    });
    expect(providerRateLimit(sdkLike)).toEqual({
      kind: 'rate_limit',
      message: '429 {"type":"error"}',
      retry_after_ms: 7000,
    });
    for (const other of [
      new ProviderError('HTTP 500', { status: 500 }),
      { status: 401 },
      new Error('boom'),
      'text',
      null,
      undefined,
    ])
      expect(providerRateLimit(other)).toBeUndefined();
  });
});

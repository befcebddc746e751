/**
 * The `evaluateLlm` activity under an API provider holds the answer against the evaluator's
 * schema as it does the host CLI's (activities/checked-answer.ts): `invalid` with the errors when
 * the run checks answers, the judgement otherwise; asked again, the question carries the errors.
 * Against the fake API (the real wire formats, through the official SDKs); no Temporal.
 */
import { describe, expect, it } from 'vitest';
import { makeEvaluateLlm } from '../../activities/evaluate-llm.js';
import type { LlmProviderRequest } from '../../fsm/types.js';
import type { EvaluateLlmInput } from '../../fsm/types.js';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';

const api = useFakeLlmApi();

const SCHEMA = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['clean', 'noisy', 'broken'] } },
  required: ['verdict'],
};
const ENUM_ERROR = '/verdict must be equal to one of the allowed values: "clean", "noisy", "broken"';

function input(
  provider: LlmProviderRequest['provider'],
  model: string,
  extra: Partial<EvaluateLlmInput> = {},
): EvaluateLlmInput {
  const base = provider === 'anthropic' ? api.url : `${api.url}/v1`;
  return {
    instanceId: 'unit-check',
    state: 'check',
    output: 'build log',
    prompt: 'How is the build?',
    schema: SCHEMA,
    min_confidence: 0.5,
    uncertain_suffix: false,
    cwd: '/nonexistent',
    timeout_s: 5,
    llm: { provider, model, base_url: base, api_key_env: 'KEY', key_required: true, max_tokens: 99 },
    ...extra,
  };
}

describe.each(['anthropic', 'openai-compatible'] as const)('%s: answers held against the schema', (provider) => {
  const evaluate = makeEvaluateLlm({ env: { KEY: 'k-unit-check' } });

  it('an answer outside the enum is invalid, with the errors and the answer, when the run checks answers', async () => {
    const reply = await evaluate(input(provider, 'verdict-dirty', { check_schema: true }));
    expect(reply).toMatchObject({
      invalid: { errors: [ENUM_ERROR], answer: { verdict: 'dirty' } },
      usage: { input_tokens: expect.any(Number) },
    });
  });

  it('without check_schema (a run of 0.4.0) the same answer is the judgement', async () => {
    expect(await evaluate(input(provider, 'verdict-dirty'))).toMatchObject({ judgement: { verdict: 'dirty' } });
  });

  it("the answer is masked before it is kept: a verdict that is the API key is *** (the judgement's raw, an invalid answer)", async () => {
    const key = 'k-unit-check';
    expect(await evaluate(input(provider, `verdict-${key}`))).toMatchObject({
      judgement: { verdict: '***', raw: { verdict: '***' } },
    });
    expect(await evaluate(input(provider, `verdict-${key}`, { check_schema: true }))).toMatchObject({
      invalid: { answer: { verdict: '***' } },
    });
  });

  it('asked again, the question carries the previous errors; the request states llm.max_tokens', async () => {
    const before = api.requests.length;
    expect(
      await evaluate(input(provider, 'verdict-clean', { check_schema: true, schema_errors: [ENUM_ERROR] })),
    ).toMatchObject({ judgement: { verdict: 'clean' } });
    const req = api.requests.slice(before)[0]!;
    expect(req.body['max_tokens']).toBe(99);
    expect(JSON.stringify(req.body['messages'])).toContain(
      'Your previous answer did not match the required JSON schema',
    );
  });
});

/**
 * Answers of the API providers checked against the evaluator's schema on a real workflow, as the
 * host CLI's are (llm-schema-check.test.ts): a schema whose `verdict` enum is [clean, noisy,
 * broken], answered `dirty` by the fake API (the real wire formats, through the official SDKs).
 * A run that checks answers asks again, with the errors in the prompt, and routes on the valid
 * answer; when every ask misses, the verdict is `error` after `llm.schema_retries` more asks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../support/fake-llm-api.js';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';
import { closeTemporal, definition, project, runLoop } from './harness.js';

const api = useFakeLlmApi();
afterAll(closeTemporal);

const SCHEMA = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['clean', 'noisy', 'broken'] },
    confidence: { type: 'number' },
    reason: { type: 'string' },
  },
  required: ['verdict'],
};
const ENUM_ERROR = '/verdict must be equal to one of the allowed values: "clean", "noisy", "broken"';

const PROVIDERS = [
  { provider: 'anthropic', path: '/v1/messages', base: (url: string) => url },
  { provider: 'openai-compatible', path: '/v1/chat/completions', base: (url: string) => `${url}/v1` },
] as const;

/** The text of a request's question (Messages API and Chat Completions alike: one user message). */
const question = (r: RecordedRequest): string =>
  String((r.body['messages'] as Array<{ content: unknown }>)[0]?.content);

describe.each(PROVIDERS)('$provider answers checked against the schema', ({ provider, path, base }) => {
  let n = 0;
  /** A loop judged by `model` of the fake API; a fresh model name per run keeps its answer count its own. */
  const judged = (model: string, retries?: number) =>
    definition({
      name: 'judged-by-api',
      initial: 'check',
      llm: {
        provider,
        model: `${model}#${provider}-${(n += 1)}`,
        base_url: base(api.url),
        ...(retries === undefined ? {} : { schema_retries: retries }),
      },
      states: {
        check: {
          action: 'echo build log',
          evaluate: { type: 'llm_structured', prompt: 'How is the build?', schema: SCHEMA },
          route: { clean: 'done', noisy: 'done', broken: 'failed', _: 'fallback', _error: 'errored' },
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
        fallback: { terminal: true, failure: true },
        errored: { terminal: true, failure: true },
      },
    });
  const env = { ANTHROPIC_API_KEY: 'k-anthropic-test', OPENAI_API_KEY: 'k-openai-test' };
  const requestsSince = (before: number) => api.requests.slice(before).filter((r) => r.path === path);

  it('asks again after "dirty" (outside the enum) and routes on the valid answer', async () => {
    const p = project();
    const before = api.requests.length;
    const run = await runLoop(judged('verdicts-dirty,noisy'), { cwd: p.cwd, checkAnswers: true, env });
    expect(run.states).toEqual(['check', 'done']);
    expect(run.events.filter((e) => e.event === 'evaluate').map((e) => e.verdict)).toEqual(['noisy']);
    expect(run.events.find((e) => e.event === 'llm_reask')).toMatchObject({
      state: 'check',
      ask: 2,
      asks: 3,
      errors: [ENUM_ERROR],
    });
    const asked = requestsSince(before);
    expect(asked).toHaveLength(2);
    expect(question(asked[0]!)).not.toContain('did not match');
    expect(question(asked[1]!)).toContain(
      `Your previous answer did not match the required JSON schema:\n<schema_errors>\n- ${ENUM_ERROR}`,
    );
  });

  it('gives error with the errors after llm.schema_retries more asks when every answer misses', async () => {
    const p = project();
    const before = api.requests.length;
    const run = await runLoop(judged('verdicts-dirty', 1), { cwd: p.cwd, checkAnswers: true, env });
    expect(requestsSince(before)).toHaveLength(2);
    expect(run.states).toEqual(['check', 'errored']);
    const evaluate = run.events.find((e) => e.event === 'evaluate');
    expect(evaluate).toMatchObject({
      verdict: 'error',
      details: { errors: [ENUM_ERROR], answer: { verdict: 'dirty' } },
    });
    expect(String((evaluate?.details as Record<string, unknown>).error)).toMatch(
      /does not match the evaluator's schema after 2 asks/,
    );
  });

  it('a prompt state\'s output_schema: "dirty" is asked again with the errors, the valid answer kept', async () => {
    const p = project();
    const before = api.requests.length;
    const def = definition({
      name: 'prompted-by-api',
      initial: 'report',
      llm: { provider, model: `verdicts-dirty,broken#${provider}-prompt`, base_url: base(api.url) },
      states: {
        report: {
          action: 'Report the build as JSON',
          action_type: 'prompt',
          output_schema: SCHEMA,
          capture: 'report',
          next: 'done',
        },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, checkAnswers: true, env });
    expect(run.states).toEqual(['report', 'done']);
    expect(run.events.find((e) => e.event === 'output_reask')).toMatchObject({
      state: 'report',
      ask: 2,
      errors: [ENUM_ERROR],
    });
    expect(JSON.parse(String(run.result.captured['report']?.output))).toMatchObject({ verdict: 'broken' });
    const asked = requestsSince(before);
    expect(asked).toHaveLength(2);
    expect(question(asked[1]!)).toContain(`<schema_errors>\n- ${ENUM_ERROR}`);
  });
});

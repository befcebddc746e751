/**
 * The `openai-compatible` provider: Chat Completions through the official `openai` SDK, against
 * OpenAI or any server speaking its API at `base_url` (Ollama, llama.cpp, vLLM: `…/v1`). The
 * answer is constrained with `response_format: json_schema`, OpenAI's structured output.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { LlmUsage } from '../fsm/snapshot.js';
import { ProviderError, VERDICT_TOOL, sdkFailure, type ProviderAnswer, type ProviderCall } from './llm-provider-call.js';

export async function askOpenAiCompatible(call: ProviderCall): Promise<ProviderAnswer> {
  const client = new OpenAI({
    // Local servers take no key, but the SDK requires one: a placeholder then.
    apiKey: call.apiKey ?? 'none',
    ...(call.request.base_url ? { baseURL: call.request.base_url } : {}),
    maxRetries: 0,
    timeout: call.timeoutMs,
  });
  let completion: unknown;
  try {
    completion = await client.chat.completions.create(
      {
        model: call.request.model,
        max_tokens: call.request.max_tokens,
        messages: [{ role: 'user', content: call.prompt }],
        response_format: { type: 'json_schema', json_schema: { name: VERDICT_TOOL, schema: call.schema } },
      },
      call.signal ? { signal: call.signal } : {},
    );
  } catch (e) {
    if (e instanceof APIConnectionTimeoutError) throw sdkFailure(e, { timeout: true });
    if (e instanceof APIConnectionError) throw sdkFailure(e, { connection: true });
    if (e instanceof APIError) throw sdkFailure(e, { status: e.status, headers: e.headers, apiMessage: apiMessage(e.error) });
    throw new ProviderError(`the answer is not a Chat Completions response (${(e as Error).message})`);
  }
  const c = completion as { choices?: Array<{ message?: { content?: unknown; refusal?: unknown } }>; usage?: Record<string, unknown> } | null;
  const choice = typeof c === 'object' && c !== null && Array.isArray(c.choices) ? c.choices[0] : undefined;
  if (choice?.message === undefined) {
    throw new ProviderError(`the answer is not a Chat Completions response: ${String(typeof completion === 'string' ? completion : JSON.stringify(completion)).slice(0, 300)}`);
  }
  const usage = usageOf(c?.usage);
  if (typeof choice.message.refusal === 'string' && choice.message.refusal !== '') {
    throw new ProviderError(`the model refused: ${choice.message.refusal.slice(0, 300)}`, {}, usage);
  }
  const answer = choice.message.content ?? '';
  return usage === undefined ? { answer } : { answer, usage };
}

function apiMessage(body: unknown): string | null {
  const m = (body as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' ? m : null;
}

function usageOf(u: Record<string, unknown> | undefined): LlmUsage | undefined {
  if (u === undefined || u === null) return undefined;
  const out: LlmUsage = {};
  if (typeof u['prompt_tokens'] === 'number') out.input_tokens = u['prompt_tokens'];
  if (typeof u['completion_tokens'] === 'number') out.output_tokens = u['completion_tokens'];
  // OpenAI does not state a cost; some compatible gateways (OpenRouter) do, as `cost` in USD.
  if (typeof u['cost'] === 'number') out.cost_usd = u['cost'];
  return Object.keys(out).length === 0 ? undefined : out;
}

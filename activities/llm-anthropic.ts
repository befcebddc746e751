/**
 * The `anthropic` provider: the Messages API through the official SDK. The verdict comes back as
 * the input of the one tool the model is made to call (`tool_choice`), whose `input_schema` is
 * the evaluation's schema: Anthropic's structured output.
 */
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type { LlmUsage } from '../fsm/snapshot.js';
import { ProviderError, VERDICT_TOOL, sdkFailure, type ProviderAnswer, type ProviderCall } from './llm-provider-call.js';

export async function askAnthropic(call: ProviderCall): Promise<ProviderAnswer> {
  const client = new Anthropic({
    // A local server without a key still gets a header the SDK insists on; the real key when set.
    apiKey: call.apiKey ?? 'none',
    ...(call.request.base_url ? { baseURL: call.request.base_url } : {}),
    maxRetries: 0,
    timeout: call.timeoutMs,
  });
  let message: unknown;
  try {
    message = await client.messages.create(
      {
        model: call.request.model,
        max_tokens: call.request.max_tokens,
        messages: [{ role: 'user', content: call.prompt }],
        tools: [{ name: VERDICT_TOOL, description: 'Record your verdict on the action output.', input_schema: { type: 'object', ...call.schema } }],
        tool_choice: { type: 'tool', name: VERDICT_TOOL },
      },
      call.signal ? { signal: call.signal } : {},
    );
  } catch (e) {
    if (e instanceof APIConnectionTimeoutError) throw sdkFailure(e, { timeout: true });
    if (e instanceof APIConnectionError) throw sdkFailure(e, { connection: true });
    if (e instanceof APIError) throw sdkFailure(e, { status: e.status, headers: e.headers, apiMessage: e.apiMessage });
    throw new ProviderError(`the answer is not a Messages API response (${(e as Error).message})`);
  }
  if (typeof message !== 'object' || message === null || !Array.isArray((message as { content?: unknown }).content)) {
    throw new ProviderError(`the answer is not a Messages API response: ${String(typeof message === 'string' ? message : JSON.stringify(message)).slice(0, 300)}`);
  }
  const m = message as { content: Array<{ type?: unknown; input?: unknown; text?: unknown }>; usage?: Record<string, unknown> };
  const usage = usageOf(m.usage);
  const tool = m.content.find((b) => b.type === 'tool_use');
  // Without the tool call (a server that ignores tool_choice), a text answer may still hold the JSON.
  const answer = tool !== undefined ? tool.input : m.content.filter((b) => b.type === 'text').map((b) => String(b.text)).join('');
  return usage === undefined ? { answer } : { answer, usage };
}

function usageOf(u: Record<string, unknown> | undefined): LlmUsage | undefined {
  if (u === undefined || u === null) return undefined;
  const out: LlmUsage = {};
  if (typeof u['input_tokens'] === 'number') out.input_tokens = u['input_tokens'];
  if (typeof u['output_tokens'] === 'number') out.output_tokens = u['output_tokens'];
  if (typeof u['cost_usd'] === 'number') out.cost_usd = u['cost_usd'];
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * The `openai-compatible` provider: Chat Completions through the official `openai` SDK, against
 * OpenAI or any server speaking its API at `base_url` (Ollama, llama.cpp, vLLM: `…/v1`). A
 * judgement is constrained with `response_format: json_schema`, OpenAI's structured output; a
 * plain completion (a prompt state) is the message's text.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import {
  ProviderError,
  VERDICT_TOOL,
  clientOptions,
  sdkRequest,
  shown,
  usageFrom,
  type ProviderAnswer,
  type ProviderCall,
  type SdkErrors,
} from './llm-provider-call.js';

const SDK: SdkErrors = {
  api: 'Chat Completions',
  timeout: APIConnectionTimeoutError,
  connection: APIConnectionError,
  status: APIError,
  body: (e) => {
    const body = (e as APIError).error as { message?: unknown; type?: unknown; code?: unknown } | undefined;
    const type = typeof body?.code === 'string' ? body.code : typeof body?.type === 'string' ? body.type : undefined;
    return { message: typeof body?.message === 'string' ? body.message : null, ...(type ? { type } : {}) };
  },
};

export async function askOpenAiCompatible(call: ProviderCall): Promise<ProviderAnswer> {
  const client = new OpenAI(clientOptions(call));
  const judge =
    call.schema === undefined
      ? {}
      : { response_format: { type: 'json_schema' as const, json_schema: { name: VERDICT_TOOL, schema: call.schema } } };
  const completion: unknown = await sdkRequest(call, SDK, (options) =>
    client.chat.completions.create(
      {
        model: call.request.model,
        max_tokens: call.request.max_tokens,
        messages: [{ role: 'user', content: call.prompt }],
        ...judge,
      },
      options,
    ),
  );
  const c = completion as {
    choices?: Array<{ message?: { content?: unknown; refusal?: unknown } }>;
    usage?: unknown;
  } | null;
  const choice = typeof c === 'object' && c !== null && Array.isArray(c.choices) ? c.choices[0] : undefined;
  if (choice?.message === undefined)
    throw new ProviderError(`the answer is not a Chat Completions response: ${shown(completion)}`);
  // OpenAI does not state a cost; some compatible gateways (OpenRouter) do, as `cost` in USD.
  const usage = usageFrom(c?.usage, { input: ['prompt_tokens'], output: 'completion_tokens', cost: 'cost' });
  if (typeof choice.message.refusal === 'string' && choice.message.refusal !== '') {
    throw new ProviderError(`the model refused: ${choice.message.refusal.slice(0, 300)}`, { reason: 'refusal' }, usage);
  }
  const content = choice.message.content;
  if (call.schema === undefined && (typeof content !== 'string' || content === '')) {
    throw new ProviderError(
      `the answer holds no text (message content: ${shown(content ?? null)})`,
      { reason: 'non_text' },
      usage,
    );
  }
  const answer = content ?? '';
  return usage === undefined ? { answer } : { answer, usage };
}

/**
 * The `anthropic` provider: the Messages API through the official SDK. A judgement comes back as
 * the input of the one tool the model is made to call (`tool_choice`), whose `input_schema` is
 * the evaluation's schema: Anthropic's structured output. A plain completion (a prompt state) is
 * the text of the answer's text blocks.
 */
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
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
  api: 'Messages API',
  timeout: APIConnectionTimeoutError,
  connection: APIConnectionError,
  status: APIError,
  body: (e) => {
    const a = e as APIError;
    const type = (a.error as { error?: { type?: unknown } } | undefined)?.error?.type;
    return { message: a.apiMessage, ...(typeof type === 'string' ? { type } : {}) };
  },
};

export async function askAnthropic(call: ProviderCall): Promise<ProviderAnswer> {
  const client = new Anthropic(clientOptions(call));
  const judge =
    call.schema === undefined
      ? {}
      : {
          tools: [
            {
              name: VERDICT_TOOL,
              description: 'Record your verdict on the action output.',
              input_schema: { type: 'object' as const, ...call.schema },
            },
          ],
          tool_choice: { type: 'tool' as const, name: VERDICT_TOOL },
        };
  const message: unknown = await sdkRequest(call, SDK, (options) =>
    client.messages.create(
      {
        model: call.request.model,
        max_tokens: call.request.max_tokens,
        messages: [{ role: 'user', content: call.prompt }],
        ...judge,
      },
      options,
    ),
  );
  if (typeof message !== 'object' || message === null || !Array.isArray((message as { content?: unknown }).content)) {
    throw new ProviderError(`the answer is not a Messages API response: ${shown(message)}`);
  }
  const m = message as {
    content: Array<{ type?: unknown; input?: unknown; text?: unknown }>;
    usage?: unknown;
    stop_reason?: unknown;
  };
  // Cache reads and writes are input tokens too (billed at their own rates).
  const usage = usageFrom(m.usage, {
    input: ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'],
    output: 'output_tokens',
    cost: 'cost_usd',
  });
  const texts = m.content.filter((b) => b.type === 'text');
  // The model declined (the API's `refusal` stop reason): whatever text came is no answer.
  if (m.stop_reason === 'refusal') {
    const said = texts
      .map((b) => String(b.text))
      .join('')
      .trim();
    throw new ProviderError(`the model refused${said ? `: ${said.slice(0, 300)}` : ''}`, { reason: 'refusal' }, usage);
  }
  const tool = m.content.find((b) => b.type === 'tool_use');
  if (call.schema === undefined && texts.length === 0) {
    throw new ProviderError(
      `the answer holds no text (content blocks: ${m.content.map((b) => String(b.type)).join(', ') || 'none'})`,
      { reason: 'non_text' },
      usage,
    );
  }
  // Without the tool call (a server that ignores tool_choice), a text answer may still hold the JSON.
  const answer =
    call.schema !== undefined && tool !== undefined ? tool.input : texts.map((b) => String(b.text)).join('');
  return usage === undefined ? { answer } : { answer, usage };
}

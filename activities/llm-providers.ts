/**
 * HTTP API providers of LLM evaluations and prompt states (`llm.provider`, fsm/llm-provider.ts): a registry from
 * provider name to the function that asks it, and what they share — the key read on the worker,
 * and every failure turned into an `error` reply with its reason (never a throw, never a stack).
 *
 * Invariants:
 * - the key is read here, from the variable the request names, in the environment the run's
 *   worker sees; it is never returned, logged or put into a reply (messages are masked with it);
 * - the SDKs' own retries are off (`maxRetries: 0`): a 429 is reported at once with its
 *   `retry_after`, for the workflow to decide (issue 13 §1 turns it into a durable pause);
 * - usage (tokens, cost when the answer states it) is returned whenever the provider sent it.
 */
import type { ApiProvider } from '../fsm/types.js';
import type { LlmReply, LlmUsage } from '../fsm/run/snapshot.js';
import { ProviderError, type ProviderCall, type ProviderFn } from './llm-provider-call.js';
import { checkedAnswer } from './checked-answer.js';
import { HEARTBEAT_MS } from './heartbeat.js';
import { maskText, maskValue, maskableSecrets } from './secret-mask.js';
import { providerLimitFact } from './rate-limit.js';

/**
 * The registry: one file per provider, each loaded on its first call. The SDKs are some 400 modules
 * together: a worker whose runs never ask a provider (most of them) does not hold them.
 */
const PROVIDERS: Record<ApiProvider, ProviderFn> = {
  anthropic: async (call) => (await import('./llm-anthropic.js')).askAnthropic(call),
  'openai-compatible': async (call) => (await import('./llm-openai.js')).askOpenAiCompatible(call),
};

/** What one provider call gave: its answer, or an error naming the provider and reason; usage when sent. */
export type ProviderOutcome =
  | { answer: unknown; usage?: LlmUsage; secrets: Buffer[] }
  | { error: string; details: Record<string, unknown>; usage?: LlmUsage; secrets: Buffer[] };

/**
 * Calls the request's provider (a judgement or a plain completion): the key read from the worker's
 * environment, heartbeats while the request is out, every failure an outcome naming the provider
 * and its address (masked), never a throw — except the activity's cancellation, rethrown as is.
 * `usage.duration_ms` is the call's wall time.
 */
export async function callProvider(
  call: Omit<ProviderCall, 'apiKey'>,
  env: NodeJS.ProcessEnv,
  o: { signal?: AbortSignal; onHeartbeat?: () => void; secrets?: string[] } = {},
): Promise<ProviderOutcome> {
  const { signal, onHeartbeat } = o;
  const { request } = call;
  const apiKey = env[request.api_key_env] || undefined;
  // The key, and the values of the variables the loop references (an answer may quote them).
  const secrets = maskableSecrets([...(apiKey === undefined ? [] : [apiKey]), ...(o.secrets ?? [])]);
  if (apiKey === undefined && request.key_required) {
    return {
      error: `LLM provider ${request.provider}: the API key variable ${request.api_key_env} is not set on the worker`,
      details: { provider: request.provider, api_key_env: request.api_key_env },
      secrets,
    };
  }
  const where = `${request.provider}${request.base_url ? ` at ${request.base_url}` : ''}`;
  // Heartbeats while the request is out: they carry a stop of the run to the signal.
  const beat = onHeartbeat ? setInterval(onHeartbeat, HEARTBEAT_MS) : undefined;
  const started = performance.now();
  const timed = (usage: LlmUsage | undefined): { usage: LlmUsage } => ({
    usage: { ...usage, duration_ms: Math.round(performance.now() - started) },
  });
  try {
    const answer = await PROVIDERS[request.provider]({ ...call, apiKey, ...(signal ? { signal } : {}) });
    return { answer: answer.answer, ...timed(answer.usage), secrets };
  } catch (e) {
    // A stop of the run cancels the call: that is the activity's cancellation, not a verdict.
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : e;
    if (e instanceof ProviderError) {
      return {
        error: maskText(`LLM provider ${where}: ${e.message}`, secrets),
        details: { provider: request.provider, ...e.details },
        ...timed(e.usage),
        secrets,
      };
    }
    return {
      error: maskText(`LLM provider ${where}: ${e instanceof Error ? e.message : String(e)}`, secrets),
      details: { provider: request.provider },
      ...timed(undefined),
      secrets,
    };
  } finally {
    if (beat) clearInterval(beat);
  }
}

/**
 * Asks the request's provider for a judgement; every failure is an `error` reply naming the
 * provider and reason. With `checkSchema` (EvaluateLlmInput.check_schema) an answer that misses
 * the schema is an `invalid` reply, as the host CLI's is (activities/checked-answer.ts).
 */
export async function askProvider(
  call: Omit<ProviderCall, 'apiKey'> & { schema: Record<string, unknown> },
  env: NodeJS.ProcessEnv,
  o: {
    signal?: AbortSignal;
    onHeartbeat?: () => void;
    secrets?: string[];
    detectRateLimits?: boolean;
    checkSchema?: boolean;
  } = {},
): Promise<LlmReply> {
  const out = await callProvider(call, env, o);
  if ('error' in out) {
    // Runs that pause on rate limits get the limit as a fact (EvaluateLlmInput.detect_rate_limits).
    const limit = o.detectRateLimits ? providerLimitFact(out.error, out.details, Math.random()) : undefined;
    return withUsage(
      limit === undefined ? { error: out.error, details: out.details } : { rate_limit: limit },
      out.usage,
    );
  }
  const { request } = call;
  const where = `${request.provider}${request.base_url ? ` at ${request.base_url}` : ''}`;
  try {
    // The answer goes into the run's history (the judgement's `raw`, an invalid answer): masked first, as the host CLI's output is.
    const reply = checkedAnswer(maskValue(answerObject(out.answer), out.secrets), call.schema, o.checkSchema);
    if ('error' in reply) return withUsage({ ...reply, details: { provider: request.provider } }, out.usage);
    return withUsage(reply, out.usage);
  } catch (e) {
    const quoted = maskText(quote(out.answer), out.secrets);
    return withUsage(
      {
        error: `LLM provider ${where}: ${(e as Error).message}${quoted ? `; answer: ${quoted}` : ''}`,
        details: { provider: request.provider },
      },
      out.usage,
    );
  }
}

function withUsage(reply: LlmReply, usage: LlmUsage | undefined): LlmReply {
  return usage === undefined ? reply : { ...reply, usage };
}

/** The judgement object in an answer: an object, or text that is one JSON object (possibly fenced). */
export function answerObject(answer: unknown): Record<string, unknown> {
  if (isRecord(answer)) return answer;
  if (typeof answer !== 'string') throw new Error('the answer holds no JSON object');
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(answer);
  const text = (fence?.[1] ?? answer).trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('the answer is not JSON');
  }
  if (!isRecord(parsed)) throw new Error('the answer is not a JSON object');
  return parsed;
}

function quote(answer: unknown): string {
  const text = typeof answer === 'string' ? answer : (JSON.stringify(answer) ?? '');
  return text.trim().slice(0, 300);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * What every HTTP API provider of LLM evaluations shares (activities/llm-providers.ts is the
 * registry): the call it gets, the answer it gives, and its failures as {@link ProviderError}s
 * whose details become the `error` verdict's (`status`, `retry_after`, `reason`).
 */
import type { LlmProviderRequest } from '../fsm/llm-provider.js';
import type { LlmUsage } from '../fsm/snapshot.js';

/** One question to a provider: the judge's prompt and the JSON schema its answer follows. */
export interface ProviderCall {
  request: LlmProviderRequest;
  apiKey: string | undefined;
  prompt: string;
  schema: Record<string, unknown>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A provider's answer: the JSON object it gave (or text meant to hold one), and its usage. */
export interface ProviderAnswer {
  answer: unknown;
  usage?: LlmUsage;
}

export type ProviderFn = (call: ProviderCall) => Promise<ProviderAnswer>;

/** A provider failure with facts for the verdict's details (`status`, `retry_after`). */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly usage?: LlmUsage,
  ) {
    super(message);
  }
}

/** The name the tool/JSON schema carries in requests. */
export const VERDICT_TOOL = 'record_verdict';

/** Seconds from a `retry-after` header (seconds or an HTTP date), else undefined. */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (Number.isFinite(n) && n >= 0) return n;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Turns an SDK error into a {@link ProviderError}: HTTP status and the API's message, a 429 with
 * its retry-after, an unreachable server or a timeout in plain words.
 */
export function sdkFailure(e: unknown, o: { status?: number; headers?: { get(name: string): string | null }; apiMessage?: string | null; connection?: boolean; timeout?: boolean }): ProviderError {
  if (o.timeout) return new ProviderError('no answer before the timeout', { reason: 'timeout' });
  if (o.connection) {
    const cause = (e as { cause?: { message?: string; code?: string } }).cause;
    return new ProviderError(`cannot reach the server (${cause?.code ?? cause?.message ?? (e as Error).message}); check base_url and that the server runs`, { reason: 'unreachable' });
  }
  if (o.status === 429) {
    const retryAfter = retryAfterSeconds(o.headers?.get('retry-after'));
    return new ProviderError(`rate limited (HTTP 429)${retryAfter === undefined ? '' : `; retry after ${retryAfter}s`}${o.apiMessage ? `: ${o.apiMessage}` : ''}`, {
      status: 429,
      reason: 'rate_limited',
      ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
    });
  }
  if (o.status !== undefined) return new ProviderError(`HTTP ${o.status}${o.apiMessage ? `: ${o.apiMessage}` : ''}`, { status: o.status });
  return new ProviderError(e instanceof Error ? e.message : String(e));
}

/**
 * What every HTTP API provider shares (activities/llm-providers.ts is the registry): the call it
 * gets, the answer it gives, the SDK client's options, the translation of SDK errors into
 * {@link ProviderError}s whose details become the `error` verdict's (`status`, `retry_after`,
 * `reason`, `error_type`), and the one place rate limits and overload are recognised
 * ({@link providerRateLimit}).
 *
 * A call is a judgement (`schema` given: the answer is a JSON object constrained to it) or a
 * plain completion (`schema` absent: a prompt state's text, fsm/llm-provider.ts).
 */
import type { LlmProviderRequest } from '../fsm/types.js';
import type { LlmUsage } from '../fsm/run/snapshot.js';

/** One question to a provider: a prompt, and for a judgement the JSON schema its answer follows. */
export interface ProviderCall {
  request: LlmProviderRequest;
  apiKey: string | undefined;
  prompt: string;
  /** A judgement's schema; absent: a plain completion whose answer is text. */
  schema?: Record<string, unknown>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A provider's answer: the JSON object it gave (or text meant to hold one, or a completion's text), and its usage. */
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

/** The options both SDK clients take: the key (a placeholder for a keyless local server), the URL, no SDK retries. */
export function clientOptions(call: ProviderCall): {
  apiKey: string;
  baseURL?: string;
  maxRetries: 0;
  timeout: number;
} {
  return {
    // Local servers take no key, but the SDKs insist on one: a placeholder then.
    apiKey: call.apiKey ?? 'none',
    ...(call.request.base_url ? { baseURL: call.request.base_url } : {}),
    // A 429 is reported at once with its retry-after, for the workflow to decide (issue 13 §1).
    maxRetries: 0,
    timeout: call.timeoutMs,
  };
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** What an SDK exposes for {@link sdkRequest}: its error classes, and how its API error body names the message and type. */
export interface SdkErrors {
  /** The API's name in messages ("Messages API", "Chat Completions"). */
  api: string;
  timeout: ErrorClass;
  connection: ErrorClass;
  status: ErrorClass;
  /** The API's own message and error type in an error's body. */
  body: (e: Error) => { message: string | null; type?: string };
}

/**
 * Makes one SDK request: every SDK failure becomes a {@link ProviderError}; a cancellation by
 * the call's signal is rethrown as it is (the activity's cancellation, not a verdict).
 */
export async function sdkRequest<T>(
  call: ProviderCall,
  sdk: SdkErrors,
  request: (options: { signal?: AbortSignal }) => Promise<T>,
): Promise<T> {
  try {
    return await request(call.signal ? { signal: call.signal } : {});
  } catch (e) {
    if (call.signal?.aborted) throw e;
    if (e instanceof sdk.timeout) throw sdkFailure(e, { timeout: true });
    if (e instanceof sdk.connection) throw sdkFailure(e, { connection: true });
    if (e instanceof sdk.status) {
      const s = e as Error & { status?: number; headers?: { get(name: string): string | null } };
      const body = sdk.body(e);
      throw sdkFailure(e, {
        status: s.status,
        headers: s.headers,
        apiMessage: body.message,
        ...(body.type ? { errorType: body.type } : {}),
      });
    }
    throw new ProviderError(`the answer is not a ${sdk.api} response (${(e as Error).message})`);
  }
}

/** Token counts (and a cost when the answer states one) from a usage object, by field name. */
export function usageFrom(
  u: unknown,
  fields: { input: string[]; output: string; cost?: string },
): LlmUsage | undefined {
  if (typeof u !== 'object' || u === null) return undefined;
  const r = u as Record<string, unknown>;
  const out: LlmUsage = {};
  const inputs = fields.input.map((f) => r[f]).filter((v): v is number => typeof v === 'number');
  if (inputs.length > 0) out.input_tokens = inputs.reduce((a, b) => a + b, 0);
  if (typeof r[fields.output] === 'number') out.output_tokens = r[fields.output] as number;
  if (fields.cost !== undefined && typeof r[fields.cost] === 'number') out.cost_usd = r[fields.cost] as number;
  return Object.keys(out).length === 0 ? undefined : out;
}

/** An answer as text, for error messages. */
export function shown(value: unknown): string {
  return String(typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 300);
}

/**
 * Turns an SDK error into a {@link ProviderError}: HTTP status and the API's message, a 429 with
 * its retry-after, an unreachable server or a timeout in plain words.
 */
function sdkFailure(
  e: unknown,
  o: {
    status?: number;
    headers?: { get(name: string): string | null };
    apiMessage?: string | null;
    errorType?: string;
    connection?: boolean;
    timeout?: boolean;
  },
): ProviderError {
  if (o.timeout) return new ProviderError('no answer before the timeout', { reason: 'timeout' });
  if (o.connection) {
    const cause = (e as { cause?: { message?: string; code?: string } }).cause;
    return new ProviderError(
      `cannot reach the server (${cause?.code ?? cause?.message ?? (e as Error).message}); check base_url and that the server runs`,
      { reason: 'unreachable' },
    );
  }
  const typed = o.errorType === undefined ? {} : { error_type: o.errorType };
  if (o.status === 429) {
    const retryAfter = retryAfterSeconds(o.headers?.get('retry-after'));
    return new ProviderError(
      `rate limited (HTTP 429)${retryAfter === undefined ? '' : `; retry after ${retryAfter}s`}${o.apiMessage ? `: ${o.apiMessage}` : ''}`,
      {
        status: 429,
        reason: 'rate_limited',
        ...typed,
        ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
      },
    );
  }
  if (o.status !== undefined)
    return new ProviderError(`HTTP ${o.status}${o.apiMessage ? `: ${o.apiMessage}` : ''}`, {
      status: o.status,
      ...typed,
    });
  return new ProviderError(e instanceof Error ? e.message : String(e));
}

/** A rate limit or an overloaded API, as {@link providerRateLimit} recognises it (facts for the pause). */
export interface ProviderRateLimit {
  kind: 'rate_limit' | 'overloaded';
  message: string;
  /** The provider's `retry-after`, in ms, when it sent one. */
  retry_after_ms?: number;
}

/**
 * The ONE place a provider failure is recognised as a rate limit or an overloaded API: HTTP 429
 * or an error of type `rate_limit_error` (Anthropic) / `rate_limit_exceeded` (OpenAI's code) is a
 * rate limit; HTTP 529 or `overloaded_error` is overload. Takes a {@link ProviderError}, the
 * `details` of a provider's error reply, or an SDK `APIError`; undefined for anything else.
 */
export function providerRateLimit(err: unknown): ProviderRateLimit | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  let status: unknown;
  let type: unknown;
  let seconds: number | undefined;
  let message: unknown;
  if (err instanceof ProviderError || !(err instanceof Error)) {
    // Our own failure, or the details of an error reply (fsm LlmReply, the prompt path's outcome).
    const d = err instanceof ProviderError ? err.details : (err as Record<string, unknown>);
    ({ status, error_type: type } = d);
    seconds = typeof d['retry_after'] === 'number' ? d['retry_after'] : undefined;
    message = err instanceof ProviderError ? err.message : d['error'];
  } else {
    // An SDK's APIError (both SDKs: status, headers, the body as `error`).
    const e = err as Error & { status?: unknown; headers?: { get?: (n: string) => string | null }; error?: unknown };
    status = e.status;
    type = bodyType(e.error);
    seconds = retryAfterSeconds(typeof e.headers?.get === 'function' ? e.headers.get('retry-after') : undefined);
    message = e.message;
  }
  const kind =
    status === 429 || type === 'rate_limit_error' || type === 'rate_limit_exceeded'
      ? 'rate_limit'
      : status === 529 || type === 'overloaded_error'
        ? 'overloaded'
        : undefined;
  if (kind === undefined) return undefined;
  const text =
    typeof message === 'string' && message !== '' ? message : kind === 'rate_limit' ? 'rate limited' : 'overloaded';
  return {
    kind,
    message: text.split('\n', 1)[0]!.slice(0, 300),
    ...(seconds === undefined ? {} : { retry_after_ms: seconds * 1000 }),
  };
}

/** An API error body's type: Anthropic `{ error: { type } }`, OpenAI `{ type, code }`. */
function bodyType(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { type?: unknown; code?: unknown; error?: { type?: unknown } };
  for (const v of [b.error?.type, b.code, b.type]) if (typeof v === 'string' && v !== 'error') return v;
  return undefined;
}

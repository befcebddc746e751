/**
 * A prompt state under an HTTP API provider (RunActionInput.llm, fsm/llm-provider.ts): one plain
 * completion through the provider's official SDK instead of a host CLI run. The answer's text is
 * the action's output.
 *
 * Invariants:
 * - a provider failure (key not set, unreachable base_url, HTTP error, an answer without text, a
 *   timeout) is a RESULT: a non-zero exit code and `error` naming the provider, its address and the
 *   fix, which the core routes as the `error` verdict; never a throw, never a stack;
 * - a stop of the run aborts the request at once (the activity's cancellation signal, carried by
 *   the heartbeats) and is rethrown as the cancellation;
 * - the key and the values of the loop's `${env.*}` variables are masked in everything returned;
 * - `usage` (tokens, cost when stated, the call's wall time) is returned whenever the provider sent it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LlmProviderRequest } from '../fsm/types.js';
import type { ActionResult, EnvRef, RunActionInput } from '../fsm/types.js';
import { resolveEnvRef, secretValues } from './env-refs.js';
import { callProvider } from './llm-providers.js';
import { textTail } from './host-envelope.js';
import { maskText } from './secret-mask.js';
import { providerLimitFact } from './rate-limit.js';

/** Exit codes of a provider prompt that did not complete, as for a host CLI run (activities/process.ts). */
const EXIT_FAILED = 1;
const EXIT_TIMED_OUT = 124;

export interface PromptHooks {
  signal?: AbortSignal;
  onHeartbeat?: () => void;
}

/**
 * Runs `input`'s prompt as a completion by `input.llm`. `logPath` receives the whole text when it
 * is longer than the tail kept in the result (as for a process's output).
 * @throws UndefinedEnvError for a `${env.*}` of the prompt that is not set (the caller's setup error).
 */
export async function runPromptByProvider(
  input: RunActionInput & { llm: LlmProviderRequest },
  env: NodeJS.ProcessEnv,
  hooks: PromptHooks,
  logPath: string,
): Promise<ActionResult> {
  const parts = input.prompt?.parts ?? [];
  const prompt = parts.map((p) => (typeof p === 'string' ? p : resolveEnvRef(p, input.state, env))).join('');
  const own = parts.flatMap((p: string | EnvRef) => (typeof p === 'string' ? [] : [p.name]));
  const started = performance.now();
  const out = await callProvider({ request: input.llm, prompt, timeoutMs: input.timeout_s * 1000 }, env, {
    ...hooks,
    secrets: secretValues(own, input.mask_env, env),
  });
  const duration_ms = Math.round(performance.now() - started);
  const usage = out.usage === undefined ? {} : { usage: out.usage };
  if ('error' in out) {
    // Runs that pause on rate limits get the limit as a fact (RunActionInput.detect_rate_limits).
    const limit = input.detect_rate_limits ? providerLimitFact(out.error, out.details, Math.random()) : undefined;
    if (limit !== undefined)
      return { output: '', stderr: out.error, exit_code: EXIT_FAILED, duration_ms, rate_limit: limit, ...usage };
    const timedOut = out.details['reason'] === 'timeout';
    const message = timedOut ? `${out.error} (the state's timeout, ${input.timeout_s}s)` : out.error;
    return {
      output: '',
      stderr: message,
      exit_code: timedOut ? EXIT_TIMED_OUT : EXIT_FAILED,
      duration_ms,
      error: message,
      ...(timedOut ? { timed_out: true, timeout_kind: 'wall' as const } : {}),
      ...usage,
    };
  }
  const text = maskText(String(out.answer), out.secrets);
  return { ...tail(text, logPath), stderr: '', exit_code: 0, duration_ms, ...usage };
}

/** The output as a process's is kept: whole when it fits the tail, else its tail and the whole text in a log file. */
function tail(text: string, logPath: string): { output: string; truncated?: true; log_file?: string } {
  const cut = textTail(text);
  if (!cut.truncated) return { output: text };
  mkdirSync(dirname(logPath), { recursive: true });
  writeFileSync(logPath, text);
  return { output: cut.output, truncated: true, log_file: logPath };
}

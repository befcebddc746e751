/**
 * Which provider answers a state's LLM evaluation: the loop's `llm:` overridden field by field by
 * the evaluation's own `llm:`. The host CLI (no `provider`, or `host-cli`) needs nothing here;
 * an HTTP API provider becomes an {@link LlmProviderRequest} in the activity's input.
 *
 * The request names the variable that holds the API key, never the key: the worker reads it
 * (activities/llm-providers.ts), so no key reaches a definition, history or event file.
 */
import type { Diagnostic } from './diagnostics.js';
import { error } from './diagnostics.js';
import type { EvaluateConfig, LlmOverride, LoopDefinition } from './schema.js';

export type ApiProvider = 'anthropic' | 'openai-compatible';

/** What the activity needs to ask an HTTP API provider. */
export interface LlmProviderRequest {
  provider: ApiProvider;
  model: string;
  /** Omitted: the provider's public API. */
  base_url?: string;
  /** The variable holding the key (worker side). */
  api_key_env: string;
  /** Whether a missing key is an error (see {@link keyRequired}). */
  key_required: boolean;
  max_tokens: number;
}

/** The key variable each API provider reads when `api_key_env` is not given. */
export const DEFAULT_KEY_ENV: Record<ApiProvider, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-compatible': 'OPENAI_API_KEY',
};

/**
 * An `openai-compatible` provider pointed at its own `base_url` without a named key variable is
 * a local server (Ollama, llama.cpp, vLLM), which usually takes no key: its key is optional.
 * Every other API provider requires its key.
 */
function keyRequired(provider: ApiProvider, merged: LlmOverride): boolean {
  return !(provider === 'openai-compatible' && merged.base_url !== undefined && merged.api_key_env === undefined);
}

/** The loop's provider fields with the evaluation's on top. */
export function mergedLlm(def: LoopDefinition, config?: EvaluateConfig): LlmOverride {
  const own = config?.type === 'llm_structured' ? config.llm : undefined;
  const out: LlmOverride = {};
  for (const key of ['provider', 'model', 'base_url', 'api_key_env'] as const) {
    const v = own?.[key] ?? def.llm[key];
    if (v !== undefined) (out as Record<string, string>)[key] = v;
  }
  return out;
}

/**
 * The API provider request for an evaluation, undefined for the host CLI, or the reason the
 * settings cannot work (validation reports it before a run starts).
 */
export function providerRequest(def: LoopDefinition, config?: EvaluateConfig): LlmProviderRequest | undefined | { invalid: string; fix: string } {
  const m = mergedLlm(def, config);
  if (m.provider === undefined || m.provider === 'host-cli') {
    const stray = (['base_url', 'api_key_env'] as const).find((k) => m[k] !== undefined);
    if (stray) return { invalid: `llm.${stray} applies only to an API provider, not the host CLI`, fix: 'add provider: anthropic or provider: openai-compatible, or remove it' };
    return undefined;
  }
  if (m.model === undefined) return { invalid: `provider ${m.provider} needs a model`, fix: 'add llm.model: <model name> (e.g. claude-sonnet-4-5, or the name your local server serves)' };
  const req: LlmProviderRequest = {
    provider: m.provider,
    model: m.model,
    api_key_env: m.api_key_env ?? DEFAULT_KEY_ENV[m.provider],
    key_required: keyRequired(m.provider, m),
    max_tokens: def.llm.max_tokens,
  };
  if (m.base_url !== undefined) req.base_url = m.base_url;
  return req;
}

/** Validation diagnostics for the provider settings of every LLM-judged state (and the loop's own). */
export function providerDiagnostics(def: LoopDefinition, judged: Array<{ state: string; config: EvaluateConfig }>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const loopLevel = providerRequest(def);
  if (loopLevel !== undefined && 'invalid' in loopLevel) out.push(error(['llm'], loopLevel.invalid, loopLevel.fix));
  for (const { state, config } of judged) {
    if (config.type !== 'llm_structured' || config.llm === undefined) continue;
    const r = providerRequest(def, config);
    if (r !== undefined && 'invalid' in r) out.push(error(['states', state, 'evaluate', 'llm'], r.invalid, r.fix));
  }
  return out;
}

/** The key variables a run needs set (deduplicated), with the first state that needs each. */
export function requiredKeys(def: LoopDefinition, judged: Array<{ state: string; config: EvaluateConfig }>): Array<{ variable: string; provider: ApiProvider; state: string }> {
  const seen = new Map<string, { variable: string; provider: ApiProvider; state: string }>();
  for (const { state, config } of judged) {
    const r = providerRequest(def, config);
    if (r === undefined || 'invalid' in r || !r.key_required || seen.has(r.api_key_env)) continue;
    seen.set(r.api_key_env, { variable: r.api_key_env, provider: r.provider, state });
  }
  return [...seen.values()];
}

/**
 * Which provider answers a state's LLM evaluation or runs its prompt: the loop's `llm:` overridden
 * field by field by the evaluation's (or the prompt state's) own `llm:`. The host CLI (no
 * `provider`, or `host-cli`) needs nothing here; an HTTP API provider becomes an
 * {@link LlmProviderRequest} in the activity's input.
 *
 * The request names the variable that holds the API key, never the key: the worker reads it
 * (activities/llm-providers.ts), so no key reaches a definition, history or event file.
 */
import type { Diagnostic } from './diagnostics.js';
import { error } from './diagnostics.js';
import type { EvaluateConfig, LlmOverride, LoopDefinition, StateConfig } from './schema.js';
import { actionKind } from './action.js';
import type { ApiProvider, LlmProviderRequest } from './types.js';

/** The key variable each API provider reads when `api_key_env` is not given. */
const DEFAULT_KEY_ENV: Record<ApiProvider, string> = {
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

/**
 * `max_tokens` of a prompt state's completion when its own `llm:` gives none. The loop's
 * `llm.max_tokens` (default 256) bounds a judge's short JSON answer, too little for a completion.
 */
export const PROMPT_MAX_TOKENS = 4096;

/** The provider fields (`max_tokens` apart) merged, field by field. */
const MERGED_KEYS = ['provider', 'model', 'base_url', 'api_key_env'] as const;

/** The loop's provider fields with the evaluation's on top. */
export function mergedLlm(def: LoopDefinition, config?: EvaluateConfig): LlmOverride {
  return mergedOver(def, config?.type === 'llm_structured' ? config.llm : undefined);
}

/** The loop's provider fields with `own` (an evaluation's or a prompt state's `llm:`) on top. */
function mergedOver(def: LoopDefinition, own: LlmOverride | undefined): LlmOverride {
  const out: LlmOverride = {};
  for (const key of MERGED_KEYS) {
    const v = own?.[key] ?? def.llm[key];
    if (v !== undefined) (out as Record<string, string>)[key] = v;
  }
  return out;
}

export type ProviderChoice = LlmProviderRequest | undefined | { invalid: string; fix: string };

/**
 * The API provider request for an evaluation, undefined for the host CLI, or the reason the
 * settings cannot work (validation reports it before a run starts).
 */
export function providerRequest(def: LoopDefinition, config?: EvaluateConfig): ProviderChoice {
  const own = config?.type === 'llm_structured' ? config.llm : undefined;
  return requestOf(mergedOver(def, own), own?.max_tokens ?? def.llm.max_tokens);
}

/**
 * The API provider request for a prompt state (a plain completion), or undefined when the host
 * CLI runs it (every state that is not a prompt, and prompts under the host CLI), or the reason
 * its settings cannot work.
 */
export function promptProviderRequest(def: LoopDefinition, state: StateConfig): ProviderChoice {
  if (state.action === undefined || state.loop !== undefined || actionKind(state) !== 'prompt') return undefined;
  return requestOf(mergedOver(def, state.llm), state.llm?.max_tokens ?? PROMPT_MAX_TOKENS);
}

/**
 * The request for provider fields given outside any loop (`ll-loop create --describe --provider …`):
 * the same defaults and key variables as a loop's `llm:`.
 */
export function fieldsProviderRequest(fields: LlmOverride, maxTokens: number): ProviderChoice {
  return requestOf(fields, maxTokens);
}

function requestOf(m: LlmOverride, maxTokens: number): ProviderChoice {
  if (m.provider === undefined || m.provider === 'host-cli') {
    const stray = (['base_url', 'api_key_env'] as const).find((k) => m[k] !== undefined);
    if (stray)
      return {
        invalid: `llm.${stray} applies only to an API provider, not the host CLI`,
        fix: 'add provider: anthropic or provider: openai-compatible, or remove it',
      };
    return undefined;
  }
  if (m.model === undefined)
    return {
      invalid: `provider ${m.provider} needs a model`,
      fix: 'add llm.model: <model name> (e.g. claude-sonnet-4-5, or the name your local server serves)',
    };
  const req: LlmProviderRequest = {
    provider: m.provider,
    model: m.model,
    api_key_env: m.api_key_env ?? DEFAULT_KEY_ENV[m.provider],
    key_required: keyRequired(m.provider, m),
    max_tokens: maxTokens,
  };
  if (m.base_url !== undefined) req.base_url = m.base_url;
  return req;
}

/** Validation diagnostics for the provider settings of every LLM-judged state, every prompt state (and the loop's own). */
export function providerDiagnostics(
  def: LoopDefinition,
  judged: Array<{ state: string; config: EvaluateConfig }>,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const loopLevel = providerRequest(def);
  if (loopLevel !== undefined && 'invalid' in loopLevel) out.push(error(['llm'], loopLevel.invalid, loopLevel.fix));
  for (const { state, config } of judged) {
    if (config.type !== 'llm_structured' || config.llm === undefined) continue;
    const r = providerRequest(def, config);
    if (r !== undefined && 'invalid' in r) out.push(error(['states', state, 'evaluate', 'llm'], r.invalid, r.fix));
  }
  for (const [name, state] of Object.entries(def.states)) out.push(...promptDiagnostics(def, name, state));
  return out;
}

/**
 * A state's own `llm:` belongs to a prompt state; a prompt state under an API provider is a plain
 * completion, which cannot run an agent, tools or a slash command (those need the host CLI).
 */
function promptDiagnostics(def: LoopDefinition, name: string, state: StateConfig): Diagnostic[] {
  const path = ['states', name];
  const prompt = state.action !== undefined && state.loop === undefined && actionKind(state) === 'prompt';
  if (state.llm !== undefined && !prompt) {
    return [
      error(
        [...path, 'llm'],
        `state "${name}": llm: on a state applies to its prompt, and this state runs no prompt`,
        'move it under evaluate: (an llm_structured evaluation), or remove it',
      ),
    ];
  }
  const r = promptProviderRequest(def, state);
  if (r === undefined) return [];
  if ('invalid' in r)
    return [error([...path, state.llm === undefined ? 'action' : 'llm'], `state "${name}": ${r.invalid}`, r.fix)];
  const where = state.llm?.provider !== undefined ? "the state's llm.provider" : "the loop's llm.provider";
  const hostOnly =
    state.agent !== undefined
      ? 'agent'
      : state.tools !== undefined
        ? 'tools'
        : state.action_type === 'slash_command' || state.action_type === undefined
          ? 'slash command'
          : undefined;
  if (hostOnly === undefined) return [];
  const field = hostOnly === 'slash command' ? 'action' : hostOnly;
  return [
    error(
      [...path, field],
      `state "${name}": its prompt runs through the ${r.provider} API (${where}) as a plain completion, which cannot run ${hostOnly === 'slash command' ? 'a slash command' : `an ${hostOnly === 'agent' ? 'agent' : 'agent with tools'}`}`,
      `give the state llm: { provider: host-cli } to run it in the host CLI, or remove ${hostOnly === 'slash command' ? 'the slash command' : `${hostOnly}:`}`,
    ),
  ];
}

/** A state that uses an API provider, as an evaluation's judge or as its prompt's runner. */
export interface ProviderUse {
  state: string;
  role: 'evaluation' | 'prompt';
  request: LlmProviderRequest;
}

/** Every API provider use of the loop (evaluations of `judged`, prompt states), in state order. */
function providerUses(def: LoopDefinition, judged: Array<{ state: string; config: EvaluateConfig }>): ProviderUse[] {
  const out: ProviderUse[] = [];
  for (const [name, state] of Object.entries(def.states)) {
    const p = promptProviderRequest(def, state);
    if (p !== undefined && !('invalid' in p)) out.push({ state: name, role: 'prompt', request: p });
    for (const j of judged) {
      if (j.state !== name) continue;
      const r = providerRequest(def, j.config);
      if (r !== undefined && !('invalid' in r)) out.push({ state: name, role: 'evaluation', request: r });
    }
  }
  return out;
}

/** The key variables a run needs set (deduplicated), with the first state that needs each and what for. */
export function requiredKeys(
  def: LoopDefinition,
  judged: Array<{ state: string; config: EvaluateConfig }>,
): Array<{ variable: string; provider: ApiProvider; state: string; role: ProviderUse['role'] }> {
  const seen = new Map<string, { variable: string; provider: ApiProvider; state: string; role: ProviderUse['role'] }>();
  for (const { state, role, request: r } of providerUses(def, judged)) {
    if (!r.key_required || seen.has(r.api_key_env)) continue;
    seen.set(r.api_key_env, { variable: r.api_key_env, provider: r.provider, state, role });
  }
  return [...seen.values()];
}

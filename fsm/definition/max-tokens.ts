/**
 * Where `llm.max_tokens` applies: it bounds calls to an HTTP API provider (the SDK's `max_tokens`:
 * an evaluation, default 256; a prompt state's completion, its own, default 4096), and budgets
 * refuse such a call beforehand when the tokens left cannot cover it (fsm/run/budget.ts cannotCover).
 *
 * The host CLI cannot take it: `claude -p` has no option for an answer's length, and Claude Code's
 * CLAUDE_CODE_MAX_OUTPUT_TOKENS caps each model request of its session rather than the call (a
 * judge may make several), so a bound written for the host CLI is a warning here, not a silent
 * no-op.
 */
import { warning, type Diagnostic } from '../diagnostics.js';
import { promptProviderRequest, providerRequest } from '../llm-provider.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import { actionKind } from '../action.js';

const WHY = 'the host CLI (claude -p) has no option for it; llm.max_tokens bounds calls to an API provider only';

/**
 * Warnings for each `max_tokens` the author wrote that reaches no API provider call: the loop's
 * (`loopGiven`: written in the file, not the default) when every evaluation is judged by the host
 * CLI, an evaluation's own under the host CLI, a prompt state's own under the host CLI.
 */
export function maxTokensWarnings(def: LoopDefinition, loopGiven: boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  const fix = 'remove it, or set provider: anthropic or openai-compatible (with a model) where it should apply';
  const evaluations = Object.entries(def.states).flatMap(([name, s]) =>
    s.evaluate?.type === 'llm_structured' ? [{ name, config: s.evaluate }] : [],
  );
  const viaApi =
    providerRequest(def) !== undefined || evaluations.some((e) => providerRequest(def, e.config) !== undefined);
  if (loopGiven && !viaApi)
    out.push(
      warning(
        ['llm', 'max_tokens'],
        `llm.max_tokens has no effect: every evaluation is judged by the host CLI, and ${WHY}`,
        fix,
      ),
    );
  for (const { name, config } of evaluations) {
    if (config.llm?.max_tokens !== undefined && providerRequest(def, config) === undefined) {
      out.push(
        warning(
          ['states', name, 'evaluate', 'llm', 'max_tokens'],
          `max_tokens has no effect on an evaluation judged by the host CLI: ${WHY}`,
          fix,
        ),
      );
    }
  }
  for (const [name, state] of Object.entries(def.states)) {
    if (state.llm?.max_tokens !== undefined && isPrompt(state) && promptProviderRequest(def, state) === undefined) {
      out.push(
        warning(
          ['states', name, 'llm', 'max_tokens'],
          `max_tokens has no effect on a prompt run by the host CLI: ${WHY}`,
          fix,
        ),
      );
    }
  }
  return out;
}

/** `llm:` on a state that runs no prompt is an error of its own (fsm/llm-provider.ts). */
function isPrompt(state: StateConfig): boolean {
  return state.action !== undefined && state.loop === undefined && actionKind(state) === 'prompt';
}

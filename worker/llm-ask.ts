/**
 * One question with a JSON answer, for the commands that ask an LLM outside a run (`review --llm`,
 * `suggest --llm`): the provider chosen as an LLM evaluation's is — the loop's `llm:` (the
 * defaults when there is no loop) with the command's `--provider`/`--model`/`--base-url` on top
 * (fsm/llm-provider.ts) — an HTTP API provider (activities/llm-providers.ts) or, with none, the
 * host CLI (worker/llm-ask-host.ts). An API key is read from the environment and never printed.
 */
import { hostCli } from '../activities/host-cli.js';
import { callProvider } from '../activities/llm-providers.js';
import { providerRequest } from '../fsm/llm-provider.js';
import type { LlmOverride, LoopDefinition } from '../fsm/schema.js';
import { askHostCli } from './llm-ask-host.js';

/** The answer with who gave it (`LLM provider anthropic at …`, `host CLI 'claude'`), or why there is none. */
export type LlmAnswer = { answer: unknown; where: string } | { error: string; fix: string };

export interface LlmQuestion {
  /** The loop's `llm:` block (with its defaults). */
  llm: LoopDefinition['llm'];
  override: LlmOverride;
  prompt: string;
  schema: Record<string, unknown>;
  /** Default: `llm.timeout`. */
  timeoutS?: number;
  /** Where the host CLI runs (the project). */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export async function askLlm(q: LlmQuestion): Promise<LlmAnswer> {
  // providerRequest reads only the loop's `llm:` block.
  const request = providerRequest({ llm: q.llm } as LoopDefinition, {
    type: 'llm_structured',
    llm: q.override,
    min_confidence: 0.5,
    uncertain_suffix: false,
  });
  if (request !== undefined && 'invalid' in request) return { error: request.invalid, fix: request.fix };
  const timeoutS = q.timeoutS ?? q.llm.timeout;
  if (request === undefined) {
    const model = q.override.model ?? q.llm.model;
    const host = await askHostCli({
      prompt: q.prompt,
      schema: q.schema,
      ...(model === undefined ? {} : { model }),
      timeoutS,
      cwd: q.cwd,
      env: q.env,
    });
    return 'error' in host ? host : { answer: host.answer, where: `host CLI '${hostCli(q.env).binary}'` };
  }
  const outcome = await callProvider(
    {
      // A review or a ranking is longer than a judge's short verdict (the loop's 256 by default).
      request: { ...request, max_tokens: Math.max(request.max_tokens, 4096) },
      prompt: q.prompt,
      schema: q.schema,
      timeoutMs: timeoutS * 1000,
    },
    q.env,
  );
  if ('error' in outcome) {
    const timedOut = outcome.details['reason'] === 'timeout';
    return {
      error: timedOut ? `${outcome.error} (${timeoutS}s)` : outcome.error,
      fix: timedOut
        ? 'try again, or give it longer with --timeout SECONDS'
        : 'check the provider, its model and its key variable, then try again',
    };
  }
  return {
    answer: outcome.answer,
    where: `LLM provider ${request.provider}${request.base_url ? ` at ${request.base_url}` : ''}`,
  };
}

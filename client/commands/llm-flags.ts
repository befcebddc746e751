/**
 * The flags of the commands that ask an LLM outside a run (`review --llm`, `suggest --llm`):
 * `--provider`, `--model`, `--base-url` (checked as an `llm:` block's fields are) and `--timeout`.
 */
import type { CommandContext, Flags } from '../command-table.js';
import { str } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { llmOverride, type LlmOverride } from '../../fsm/schema.js';

export const LLM_FLAGS: Flags = {
  llm: { type: 'boolean' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  timeout: { type: 'string' },
};

/** `--provider`/`--model`/`--base-url`, checked as an `llm:` block's fields are. */
function overrideOf(provider: string | undefined, model: string | undefined, baseUrl: string | undefined): LlmOverride {
  const given = {
    ...(provider === undefined ? {} : { provider }),
    ...(model === undefined ? {} : { model }),
    ...(baseUrl === undefined ? {} : { base_url: baseUrl }),
  };
  const parsed = llmOverride.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const flag = issue.path[0] === 'base_url' ? 'base-url' : String(issue.path[0]);
  throw new UsageError(
    `--${flag} ${String((given as Record<string, unknown>)[String(issue.path[0])])}: ${issue.message}`,
    'e.g. ll-loop review <loop> --llm --provider anthropic --model claude-sonnet-4-5, or --provider openai-compatible --base-url http://localhost:11434/v1 --model llama3',
  );
}

function timeoutOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`--timeout ${text} is not a number of seconds`, 'e.g. --timeout 120');
  return n;
}

/** The LLM flags given, checked: a usage error when one is given without `--llm`. */
export function llmFlags(
  ctx: CommandContext,
  example: string,
): { llm: boolean; override: LlmOverride; timeoutS?: number } {
  const llm = ctx.values['llm'] === true;
  const given = ['provider', 'model', 'base-url', 'timeout'].filter((f) => ctx.values[f] !== undefined);
  if (!llm && given.length)
    throw new UsageError(`--${given[0]} is for the LLM's answer`, `add --llm: ${example} --llm --${given[0]} …`);
  const override = overrideOf(str(ctx, 'provider'), str(ctx, 'model'), str(ctx, 'base-url'));
  const timeoutS = timeoutOf(str(ctx, 'timeout'));
  return { llm, override, ...(timeoutS === undefined ? {} : { timeoutS }) };
}

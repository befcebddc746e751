/**
 * `create --describe`'s drafting, printing nothing but progress notes: the refusals that need
 * no LLM (flags, a name taken, a missing key, no way to confirm) made before the first ask, the
 * draft asked for, validated and simulated, and asked again with its problems
 * (describe-draft.ts), its cost noted however drafting ends. Used by the command
 * (client/commands/create-describe.ts) and the MCP server's `create_loop` (client/mcp/).
 */
import { relative } from 'node:path';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { fieldsProviderRequest } from '../../fsm/llm-provider.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { LlmProviderRequest } from '../../fsm/types.js';
import { existingLoopFile, freeName, nameProblem } from './answers.js';
import { DRAFT_MAX_TOKENS, hostCliAsk, providerAsk } from './describe-ask.js';
import { checkDraft, draftName, extractYaml, withName } from './describe-check.js';
import { costText, draftLoop, MAX_TRIES, type Ask, type DraftResult } from './describe-draft.js';
import { LoopExistsError } from './save.js';

/** How long one ask may take when `--timeout` is not given. */
export const DEFAULT_DRAFT_TIMEOUT_MS = 300_000;

const PROVIDERS = ['host-cli', 'anthropic', 'openai-compatible'] as const;

/** The name a draft is saved under when `--name` is not given and its own is unusable. */
const FALLBACK_NAME = 'drafted-loop';

export interface DraftRequest {
  cwd: string;
  description: string;
  provider?: string;
  baseUrl?: string;
  model?: string;
  timeoutMs: number;
  name?: string;
  force: boolean;
  /** The draft is only shown, not saved (a name taken is no refusal then). */
  dryRun: boolean;
  /** Whether a valid draft can be saved: `--yes`, a terminal to confirm on, or a caller that decided. */
  confirmable: boolean;
  env: NodeJS.ProcessEnv;
  /** Progress lines (the drafts asked for, the cost). */
  note: (text: string) => void;
  /** The LLM to ask; by default the host CLI or the provider the flags name. */
  ask?: Ask;
}

/** A valid draft: its YAML (named), the name it is saved under, the loop it loads as. */
export interface Drafted {
  yaml: string;
  name: string;
  definition: LoopDefinition;
  /** What drafting cost, as the command prints it. */
  cost: string;
}

/** The provider request the flags name, undefined for the host CLI; a usage error when they cannot work. */
function requestFromFlags(o: DraftRequest): LlmProviderRequest | undefined {
  const provider = o.provider ?? 'host-cli';
  if (!(PROVIDERS as readonly string[]).includes(provider))
    throw new UsageError(`--provider "${provider}" is not a provider`, `use one of: ${PROVIDERS.join(', ')}`);
  const r = fieldsProviderRequest(
    {
      provider: provider as (typeof PROVIDERS)[number],
      ...(o.model === undefined ? {} : { model: o.model }),
      ...(o.baseUrl === undefined ? {} : { base_url: o.baseUrl }),
    },
    DRAFT_MAX_TOKENS,
  );
  if (r !== undefined && 'invalid' in r)
    throw new UsageError(
      r.invalid.replace('llm.base_url', '--base-url').replace('a model', 'a --model'),
      r.fix
        .replace('add llm.model: <model name>', 'add --model <model name>')
        .replace('add provider:', 'add --provider'),
    );
  if (r !== undefined && r.key_required && !o.env[r.api_key_env])
    throw new UsageError(
      `--provider ${r.provider} needs its API key in ${r.api_key_env}, which is not set`,
      `export ${r.api_key_env}=… (the variable a loop with llm.provider: ${r.provider} reads)`,
    );
  return r;
}

/** The save name: `--name`, else the draft's own when usable and free, else a free fallback. */
function saveName(o: DraftRequest, yaml: string): string {
  if (o.name !== undefined) return o.name;
  const own = draftName(yaml);
  return freeName(o.cwd, own !== undefined && nameProblem(own) === undefined ? own : FALLBACK_NAME);
}

/** The answer's YAML with `--name` applied (the answer itself when it holds no mapping). */
function named(o: DraftRequest, answer: string): string {
  if (o.name === undefined) return answer;
  try {
    return withName(extractYaml(answer), o.name);
  } catch {
    return answer;
  }
}

function refuseBeforeAsking(o: DraftRequest): void {
  if (o.description.trim() === '')
    throw new UsageError(
      '--describe needs a description of the loop',
      'll-loop create --describe "run the tests; fix failures"',
    );
  if (!o.confirmable)
    throw new UsageError(
      'create --describe saves only on confirmation, and there is no terminal to confirm on',
      'pass --yes to save the valid draft without asking, or --dry-run to print it',
    );
  if (o.name === undefined) return;
  const problem = nameProblem(o.name);
  if (problem) throw new UsageError(problem, 'pass another --name');
  const existing = existingLoopFile(o.cwd, o.name);
  if (existing && !o.force && !o.dryRun) throw new LoopExistsError(relative(o.cwd, existing));
}

/** The error that ends a drafting without a valid loop (its exit code from docs/cli.md's table). */
function failure(result: Extract<DraftResult, { ok: false }>): CliError {
  const s = result.stopped;
  if (s?.reason === 'timeout')
    return new CliError(`${s.message}; nothing was saved`, 'try again, or give it longer: --timeout 10m', EXIT.timeout);
  if (s?.reason === 'refusal')
    return new CliError(
      `${s.message}; nothing was saved`,
      'describe the loop differently (what it runs, what it checks, when it stops)',
      EXIT.usage,
    );
  if (s !== undefined)
    return new CliError(
      `${s.message}; nothing was saved`,
      /host CLI .* not found|does not exist/.test(s.message)
        ? 'install Claude Code or set LL_HOST_CLI to your coding agent, or draft with an API: --provider anthropic --model M (ANTHROPIC_API_KEY)'
        : 'check the provider flags and that the LLM answers',
      EXIT.runError,
    );
  return new CliError(
    `no valid loop after ${result.tries} draft${result.tries === 1 ? '' : 's'}; nothing was saved. The last draft's problems:\n${result.problems.map((p) => `  ${p.replaceAll('\n', '\n  ')}`).join('\n')}`,
    'describe the loop more precisely and try again, or write it with ll-loop create (the wizard)',
    EXIT.usage,
  );
}

/** Draft the loop `o.description` describes; throws what ends the drafting without a valid loop. */
export async function draftDescribed(o: DraftRequest): Promise<Drafted> {
  refuseBeforeAsking(o);
  const request = o.ask === undefined ? requestFromFlags(o) : undefined;
  const ask =
    o.ask ??
    (request === undefined ? hostCliAsk(o.model, o.timeoutMs, o.env) : providerAsk(request, o.timeoutMs, o.env));
  const who = request === undefined ? 'the host CLI' : `${request.provider} (${request.model})`;
  o.note(`Drafting the loop with ${who}: at most ${MAX_TRIES} drafts, each validated and simulated…\n`);
  const result = await draftLoop({
    description: o.description,
    ask,
    check: (answer) => checkDraft(named(o, answer), o.cwd, saveName(o, extractYaml(answer))),
    onRetry: (attempt, problems) =>
      o.note(
        `Draft ${attempt - 1} has ${problems.length} problem${problems.length === 1 ? '' : 's'}; asking again with them (draft ${attempt} of ${MAX_TRIES}).\n`,
      ),
  });
  const cost = costText(result.cost);
  o.note(`Drafting cost: ${cost}\n`);
  if (!result.ok) throw failure(result);
  const yaml = named(o, result.yaml);
  const name = saveName(o, yaml);
  return { yaml, name, definition: result.definition, cost };
}

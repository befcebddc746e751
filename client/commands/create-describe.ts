/**
 * `ll-loop create --describe "TEXT"`: an LLM drafts the loop (seed 001's `/ll:create-loop`,
 * seed 004's "FSMs writing FSMs"). The draft is validated and simulated, and asked for again with
 * the exact problems at most three times in all (client/create/describe-draft.ts); a valid draft
 * is shown as `ll-loop show` shows a loop and saved on confirmation, or at once with `--yes`.
 *
 * Invariants: an invalid draft is never saved (the file is written through `saveLoop`, which
 * loads the same bytes first); everything that can be refused without the LLM (flags, a name
 * taken, a missing key, no way to confirm) is refused before the first ask, so nothing is spent
 * on a draft that could not be saved; the cost is printed however drafting ends.
 */
import { relative } from 'node:path';
import { confirm } from '@inquirer/prompts';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { fieldsProviderRequest } from '../../fsm/llm-provider.js';
import type { LlmProviderRequest } from '../../fsm/types.js';
import { existingLoopFile, freeName, loopFilePath, nameProblem } from '../create/answers.js';
import { DRAFT_MAX_TOKENS, hostCliAsk, providerAsk } from '../create/describe-ask.js';
import { checkDraft, draftName, extractYaml, withName } from '../create/describe-check.js';
import { costText, draftLoop, MAX_TRIES, type Ask, type DraftResult } from '../create/describe-draft.js';
import { LoopExistsError, saveLoop } from '../create/save.js';
import { renderShow } from '../show/render.js';
import { createStyle } from '../../reporters/style.js';

/** How long one ask may take when `--timeout` is not given. */
export const DEFAULT_DRAFT_TIMEOUT_MS = 300_000;

const PROVIDERS = ['host-cli', 'anthropic', 'openai-compatible'] as const;

/** The name a draft is saved under when `--name` is not given and its own is unusable. */
const FALLBACK_NAME = 'drafted-loop';

export interface DescribeOptions {
  cwd: string;
  description: string;
  provider?: string;
  baseUrl?: string;
  model?: string;
  timeoutMs: number;
  name?: string;
  yes: boolean;
  force: boolean;
  /** Print the valid draft's YAML, write nothing. */
  dryRun: boolean;
  /** A terminal to confirm the save on. */
  interactive: boolean;
  colour: boolean;
  width: number;
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The LLM to ask; by default the host CLI or the provider the flags name. */
  ask?: Ask;
}

/** The provider request the flags name, undefined for the host CLI; a usage error when they cannot work. */
function requestFromFlags(o: DescribeOptions): LlmProviderRequest | undefined {
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
function saveName(o: DescribeOptions, yaml: string): string {
  if (o.name !== undefined) return o.name;
  const own = draftName(yaml);
  return freeName(o.cwd, own !== undefined && nameProblem(own) === undefined ? own : FALLBACK_NAME);
}

/** The answer's YAML with `--name` applied (the answer itself when it holds no mapping). */
function named(o: DescribeOptions, answer: string): string {
  if (o.name === undefined) return answer;
  try {
    return withName(extractYaml(answer), o.name);
  } catch {
    return answer;
  }
}

function refuseBeforeAsking(o: DescribeOptions): void {
  if (o.description.trim() === '')
    throw new UsageError(
      '--describe needs a description of the loop',
      'll-loop create --describe "run the tests; fix failures"',
    );
  if (!o.yes && !o.dryRun && !o.interactive)
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
      'check the provider flags and that the LLM answers',
      EXIT.runError,
    );
  return new CliError(
    `no valid loop after ${result.tries} draft${result.tries === 1 ? '' : 's'}; nothing was saved. The last draft's problems:\n${result.problems.map((p) => `  ${p.replaceAll('\n', '\n  ')}`).join('\n')}`,
    'describe the loop more precisely and try again, or write it with ll-loop create (the wizard)',
    EXIT.usage,
  );
}

/** Asks before saving; Ctrl-C or a closed terminal (inquirer's ExitPromptError) is a no. */
async function confirmSave(shown: string): Promise<boolean> {
  try {
    return await confirm({ message: `Save to ${shown}?`, default: true });
  } catch (e) {
    if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError')) return false;
    throw e;
  }
}

export async function describeCommand(o: DescribeOptions): Promise<number> {
  refuseBeforeAsking(o);
  const request = o.ask === undefined ? requestFromFlags(o) : undefined;
  const ask =
    o.ask ??
    (request === undefined ? hostCliAsk(o.model, o.timeoutMs, o.env) : providerAsk(request, o.timeoutMs, o.env));
  const who = request === undefined ? 'the host CLI' : `${request.provider} (${request.model})`;
  o.err(`Drafting the loop with ${who}: at most ${MAX_TRIES} drafts, each validated and simulated…\n`);
  const result = await draftLoop({
    description: o.description,
    ask,
    check: (answer) => checkDraft(named(o, answer), o.cwd, saveName(o, extractYaml(answer))),
    onRetry: (attempt, problems) =>
      o.err(
        `Draft ${attempt - 1} has ${problems.length} problem${problems.length === 1 ? '' : 's'}; asking again with them (draft ${attempt} of ${MAX_TRIES}).\n`,
      ),
  });
  o.err(`Drafting cost: ${costText(result.cost)}\n`);
  if (!result.ok) throw failure(result);
  const yaml = named(o, result.yaml);
  const name = saveName(o, yaml);
  const shown = relative(o.cwd, loopFilePath(o.cwd, name));
  if (o.dryRun) {
    o.out(yaml);
    return EXIT.ok;
  }
  o.out(
    renderShow(
      { definition: result.definition, file: `${shown} (draft, not saved yet)`, target: { arg: name, builtin: false } },
      { style: createStyle(o.colour), width: Math.max(60, o.width) },
    ),
  );
  if (!o.yes && !(await confirmSave(shown))) {
    o.out('Nothing was written.\n');
    return EXIT.ok;
  }
  const file = saveLoop(yaml, o.cwd, name, o.force);
  o.out(`✓ Wrote ${relative(o.cwd, file)}\nRun it with: ll-loop run ${name}\n`);
  return EXIT.ok;
}

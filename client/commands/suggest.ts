/**
 * `ll-loop suggest "TASK" [--json] [--limit N] [--run [--yes]] [--llm …]`: the project's and the
 * built-in loops ranked for a task described in words (client/commands/suggest-rank.ts), or by an
 * LLM with `--llm` (client/commands/suggest-llm.ts), each with its score and why. When none fits
 * it prints the `create --describe` command line for the same text. `--run` starts the best one
 * after a y/N question on a terminal (or with `--yes`).
 */
import { confirm } from '@inquirer/prompts';
import { bool, str, type CommandContext, type CommandSpec } from '../command-table.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { shellQuote } from '../../fsm/interpolate.js';
import { suggestCandidates } from './suggest-candidates.js';
import { MIN_FIT, rankLoops, type Candidate, type Ranked } from './suggest-rank.js';
import { LLM_FLAGS, llmFlags } from './llm-flags.js';
import { mergeRanking, rankingPrompt, RANKING_SCHEMA } from './suggest-llm.js';
import { loopDefinition, type LlmOverride } from '../../fsm/schema.js';

const DEFAULT_LIMIT = 5;

function limitOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--limit ${text} is not a positive whole number`, 'e.g. --limit 3');
  return n;
}

/** The y/N question; Ctrl-C or a closed terminal is a cancel. */
async function ask(message: string): Promise<boolean> {
  try {
    return await confirm({ message, default: false });
  } catch (err) {
    if (err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError'))
      throw new CliError(
        'cancelled; nothing was started',
        'run ll-loop suggest again, or ll-loop run <loop>',
        EXIT.cancelled,
      );
    throw err;
  }
}

/** Start `name` as `ll-loop run <name>` does. */
async function startRun(ctx: CommandContext, name: string): Promise<number> {
  const [{ runCommand }, { runOptionsOf }] = await Promise.all([
    import('../../runs/start/run-loop.js'),
    import('./run-flags.js'),
  ]);
  ctx.out(`running: ll-loop run ${name}\n`);
  return runCommand(runOptionsOf({ ...ctx, positionals: [name], values: {} }));
}

/** The LLM's ranking (client/commands/suggest-llm.ts), or the words' one with the reason it failed on stderr. */
async function llmRanking(
  ctx: CommandContext,
  task: string,
  candidates: readonly Candidate[],
  byWords: Ranked[],
  override: LlmOverride,
  timeoutS: number | undefined,
): Promise<Ranked[]> {
  const { askLlm } = await import('../../worker/llm-ask.js');
  const asked = await askLlm({
    llm: loopDefinition.shape.llm.parse(undefined),
    override,
    prompt: rankingPrompt(task, candidates),
    schema: RANKING_SCHEMA,
    ...(timeoutS === undefined ? {} : { timeoutS }),
    cwd: ctx.cwd,
    env: process.env,
  });
  const merged = 'error' in asked ? undefined : mergeRanking(asked.answer, byWords, candidates);
  if (merged !== undefined) return merged;
  const why = 'error' in asked ? asked.error : `${asked.where}: the answer is not a ranking (JSON with ranking)`;
  ctx.err(`warning: LLM ranking failed, ranked by words alone: ${why}\n`);
  return byWords;
}

function printRanked(task: string, fits: readonly Ranked[], out: (t: string) => void): void {
  out(`Loops for ${JSON.stringify(task)}:\n`);
  fits.forEach((r, i) => {
    const where = r.source === 'builtin' ? 'built-in' : '.loops/';
    out(`  ${i + 1}. ${r.name} (${where}, score ${r.score.toFixed(2)}): ${r.why.join(', ')}\n`);
  });
}

export const suggestSpec: CommandSpec = {
  usage:
    'suggest "TASK" [--json] [--limit N] [--run [--yes]] [--llm [--provider P --model M --base-url U --timeout S]]   find the loops that fit a task',
  flags: {
    ...LLM_FLAGS,
    json: { type: 'boolean' },
    limit: { type: 'string' },
    run: { type: 'boolean' },
    yes: { type: 'boolean', short: 'y' },
  },
  async run(ctx) {
    const task = ctx.positionals.join(' ').trim();
    if (task === '') throw new UsageError('suggest needs the task in words', 'll-loop suggest "fix the failing tests"');
    const limit = limitOf(str(ctx, 'limit'));
    const runIt = bool(ctx, 'run');
    const yes = bool(ctx, 'yes');
    if (yes && !runIt)
      throw new UsageError('--yes answers the question of --run', `ll-loop suggest ${shellQuote(task)} --run --yes`);
    if (runIt && bool(ctx, 'json'))
      throw new UsageError('--run and --json do not go together', 'ask with --json, then ll-loop run <name>');
    const { llm, override, timeoutS } = llmFlags(ctx, `ll-loop suggest ${shellQuote(task)}`);
    const candidates = suggestCandidates(ctx.cwd);
    let ranked = rankLoops(task, candidates);
    if (llm) ranked = await llmRanking(ctx, task, candidates, ranked, override, timeoutS);
    const fits = ranked.filter((r) => r.score >= MIN_FIT).slice(0, limit);
    if (bool(ctx, 'json')) {
      ctx.out(
        `${JSON.stringify(
          fits.map(({ name, score, why }) => ({ name, score, why })),
          null,
          2,
        )}\n`,
      );
      // Nothing fits is exit 1, as next-loop's nothing to suggest: a script can tell it from a suggestion.
      return fits.length ? EXIT.ok : EXIT.usage;
    }
    const create = `ll-loop create --describe ${shellQuote(task)}`;
    if (fits.length === 0) {
      ctx.out(`No loop here fits ${JSON.stringify(task)}.\nWrite one for it:\n  ${create}\n`);
      return EXIT.usage;
    }
    printRanked(task, fits, ctx.out);
    const best = fits[0]!;
    if (!runIt) {
      ctx.out(`\nRun the best: ll-loop run ${best.name}\nNone of these? ${create}\n`);
      return EXIT.ok;
    }
    if (!yes) {
      const interactive = process.stdin.isTTY === true && ctx.terminal.isTTY === true;
      if (!interactive)
        throw new UsageError(
          'nothing started: there is no terminal to confirm on',
          `re-run with --yes to start ${best.name}: ll-loop suggest ${shellQuote(task)} --run --yes`,
        );
      if (!(await ask(`Run ${best.name}?`))) {
        ctx.out('nothing started\n');
        return EXIT.ok;
      }
    }
    return startRun(ctx, best.name);
  },
};

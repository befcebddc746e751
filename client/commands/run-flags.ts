/**
 * `ll-loop run`'s flags and how its command line becomes RunOptions: the `run` command's, and the
 * checkout worker's reading of an early start (runs/start/start-from-argv.ts, handed
 * runOptionsFromArgv by the `worker` command). A flag helper, not a command: both commands import it.
 */
import { parseArgs } from 'node:util';
import { bool, str, type CommandContext, type Flags } from '../command-table.js';
import { projectInvocation } from './project-root.js';
import { negativeValuesJoined, positiveInt } from './argument-errors.js';
import { CONTEXT_FLAGS, contextPairs } from './context-flags.js';
import { UsageError } from '../../errors/errors.js';
import type { RunOptions } from '../../runs/start/run-options.js';
import { runPlaceOf } from '../../runs/start/run-place.js';
import { parseDuration } from '../../runs/schedules/durations.js';
import { colourWanted } from '../../reporters/style.js';
import { checkFollow, definitionOverridesOf, MORE_RUN_FLAGS, runTarget } from './run-more-flags.js';
import { runInputPairs } from './run-input.js';

export const RUN_USAGE =
  'run <name|path> [input] [--max-iterations N] [-n|--max-steps N] [--delay S] [--context K=V]… [--context-file K=PATH]… [--context-allow-unknown] [--dry-run] [--no-llm] [--llm-model M] [-b|--background] [--pool NAME [--checkout git] | --worktree | --task-queue Q] [-q|--queue [--queue-timeout D]] [--no-lock] [-v|--verbose|--quiet] [--json] [--builtin] [--program-md PATH] [--handoff-threshold N]';

export const RUN_FLAGS: Flags = {
  'max-iterations': { type: 'string' },
  ...CONTEXT_FLAGS,
  'context-allow-unknown': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'no-llm': { type: 'boolean' },
  'llm-model': { type: 'string' },
  json: { type: 'boolean' },
  // little-loops' short forms: -b, -q (its --queue), -v; --qt is its second name of --quiet.
  background: { type: 'boolean', short: 'b' },
  'task-queue': { type: 'string' },
  pool: { type: 'string' },
  checkout: { type: 'string' },
  worktree: { type: 'boolean' },
  // Scope locks: wait for busy scopes in FIFO order (optionally bounded), or take none at all.
  queue: { type: 'boolean', short: 'q' },
  'queue-timeout': { type: 'string' },
  'no-lock': { type: 'boolean' },
  // How much progress: every action's last lines, or only the end line.
  verbose: { type: 'boolean', short: 'v' },
  quiet: { type: 'boolean' },
  qt: { type: 'boolean' },
  // little-loops' run flags (run-more-flags.ts).
  ...MORE_RUN_FLAGS,
};

/**
 * The loop and the input of `run <loop> [input]`: one positional more than the input is refused
 * (an input of several words is one quoted argument).
 */
function targetAndInput(ctx: CommandContext): { target: string; input?: string } {
  const [target, input, ...extra] = ctx.positionals;
  if (target === undefined) throw new UsageError('run needs a loop name or path', 'll-loop run <name>');
  if (extra.length > 0)
    throw new UsageError(
      `unexpected arguments: ${extra.join(' ')} (run takes a loop and one input)`,
      `quote an input of several words: ll-loop run ${target} '${[input, ...extra].join(' ')}'`,
    );
  return { target, ...(input === undefined ? {} : { input }) };
}

/** `run`'s options from its parsed command line (also the worker's, for an early start: start-from-argv.ts). */
export function runOptionsOf(ctx: CommandContext): RunOptions {
  const given = targetAndInput(ctx);
  const target = runTarget(ctx, given.target);
  const maxIterations = positiveInt(str(ctx, 'max-iterations'), '--max-iterations');
  const llmModel = str(ctx, 'llm-model');
  const taskQueue = str(ctx, 'task-queue');
  if (taskQueue !== undefined && taskQueue.trim() === '')
    throw new UsageError(
      '--task-queue needs a task queue name',
      'e.g. --task-queue ll-loop (the default queue of ll-loop worker)',
    );
  const queueTimeout = str(ctx, 'queue-timeout');
  // --queue-timeout implies --queue: a bound on waiting only makes sense when waiting.
  const queueTimeoutS = queueTimeout === undefined ? undefined : parseDuration(queueTimeout, '--queue-timeout') / 1000;
  const queue = bool(ctx, 'queue') || queueTimeoutS !== undefined;
  if (bool(ctx, 'no-lock') && queue)
    throw new UsageError(
      '--no-lock takes no scope lock, so there is nothing to queue for',
      'drop --queue/--queue-timeout, or --no-lock',
    );
  const quiet = bool(ctx, 'quiet') || bool(ctx, 'qt');
  if (bool(ctx, 'verbose') && quiet)
    throw new UsageError('--verbose and --quiet contradict each other', 'use one of them');
  checkFollow(ctx);
  const definitionOverrides = definitionOverridesOf(ctx);
  const programMd = str(ctx, 'program-md');
  // The input and the steering file go first: `--context` wins over both.
  const inputs = runInputPairs({
    target,
    cwd: ctx.cwd,
    invokedIn: ctx.invokedIn ?? ctx.cwd,
    allowUnknown: bool(ctx, 'context-allow-unknown'),
    ...(given.input === undefined ? {} : { input: given.input }),
    ...(programMd === undefined ? {} : { programMd }),
  });
  return {
    cwd: ctx.cwd,
    target,
    context: [...inputs, ...contextPairs(ctx)],
    allowUnknownContext: bool(ctx, 'context-allow-unknown'),
    dryRun: bool(ctx, 'dry-run'),
    noLlm: bool(ctx, 'no-llm'),
    json: bool(ctx, 'json'),
    background: bool(ctx, 'background'),
    queue,
    noLock: bool(ctx, 'no-lock'),
    colour: colourWanted(ctx.terminal),
    ask: ctx.terminal.isTTY === true && process.stdin.isTTY === true,
    detail: bool(ctx, 'verbose') ? 'verbose' : quiet ? 'quiet' : 'normal',
    out: ctx.out,
    err: ctx.err,
    ...(maxIterations === undefined ? {} : { maxIterations }),
    ...(Object.keys(definitionOverrides).length ? { definitionOverrides } : {}),
    ...(llmModel === undefined ? {} : { llmModel }),
    place: runPlaceOf({
      taskQueue,
      pool: str(ctx, 'pool'),
      checkout: str(ctx, 'checkout'),
      worktree: bool(ctx, 'worktree'),
    }),
    ...(queueTimeoutS === undefined ? {} : { queueTimeoutS }),
  };
}

/**
 * `run`'s options from its command line (`run …` as typed, in `invokedIn`), parsed as the CLI
 * parses it (client/cli.ts dispatch): how the checkout's worker reads an early start
 * (runs/start/start-from-argv.ts, handed this by the `worker` command). Throws what the
 * command would report.
 */
export function runOptionsFromArgv(argv: readonly string[], invokedIn: string): RunOptions {
  if (argv[0] !== 'run') throw new UsageError(`not a run: ${argv[0] ?? '(nothing)'}`);
  const parsed = parseArgs({
    args: negativeValuesJoined(argv.slice(1), RUN_FLAGS),
    allowPositionals: true,
    options: RUN_FLAGS,
  });
  const invocation = projectInvocation(invokedIn, parsed.positionals);
  return runOptionsOf({
    cwd: invocation.root,
    invokedIn,
    positionals: invocation.positionals,
    values: parsed.values as CommandContext['values'],
    out: () => undefined,
    err: () => undefined,
    terminal: {},
  });
}

/**
 * The `run` flags that set a loop field for one run (`--max-steps`/`-n`, `--delay`,
 * `--handoff-threshold`), pick the loop (`--builtin`) or say how to watch it (`--follow`/`-f`):
 * little-loops' run flags, read here so that run-flags.ts stays the table of them all.
 */
import { bool, str, type CommandContext, type Flags } from '../command-table.js';
import { builtinLoopFile, builtinLoopNames } from '../../loader/catalog.js';
import { didYouMean } from '../../fsm/suggest.js';
import type { LoadOverrides } from '../../loader/load.js';
import { UsageError } from '../../errors/errors.js';
import { positiveInt } from './argument-errors.js';
import { parseDuration } from '../../runs/schedules/durations.js';

export const MORE_RUN_FLAGS: Flags = {
  'max-steps': { type: 'string', short: 'n' },
  delay: { type: 'string' },
  'handoff-threshold': { type: 'string' },
  builtin: { type: 'boolean' },
  follow: { type: 'boolean', short: 'f' },
  'program-md': { type: 'string' },
};

/** `--delay`: seconds (`2`, `0.5`, as little-loops takes it) or a duration (`30s`, `2m`); 0 is no delay. */
function delaySeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  if (/^\s*[\d.]+[smhd]/.test(value)) return parseDuration(value, '--delay') / 1000;
  throw new UsageError(
    `--delay must be a number of seconds (0 or more) or a duration, got "${value}"`,
    'e.g. --delay 2 (two seconds before each new pass), --delay 1.5 or --delay 1m',
  );
}

/** `--handoff-threshold`: a whole percentage from 1 to 100. */
function handoffThreshold(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\s*\+?\d+\s*$/.test(value) || n < 1 || n > 100)
    throw new UsageError(
      `--handoff-threshold must be a whole number from 1 to 100 (a percentage of the agent's context), got "${value}"`,
      'e.g. --handoff-threshold 80',
    );
  return n;
}

/** The loop fields these flags set for the run (loader/load.ts applies them before validation). */
export function definitionOverridesOf(
  ctx: CommandContext,
): Pick<LoadOverrides, 'maxSteps' | 'backoff' | 'handoffThreshold'> {
  const maxSteps = positiveInt(str(ctx, 'max-steps'), '--max-steps');
  const backoff = delaySeconds(str(ctx, 'delay'));
  const threshold = handoffThreshold(str(ctx, 'handoff-threshold'));
  return {
    ...(maxSteps === undefined ? {} : { maxSteps }),
    ...(backoff === undefined ? {} : { backoff }),
    ...(threshold === undefined ? {} : { handoffThreshold: threshold }),
  };
}

/** The loop to run: `target`, or with `--builtin` the built-in loop of that name (never a project's). */
export function runTarget(ctx: CommandContext, target: string): string {
  if (!bool(ctx, 'builtin')) return target;
  if (/[/\\]/.test(target) || /\.ya?ml$/i.test(target))
    throw new UsageError(
      `--builtin takes the name of a built-in loop, not a path: ${target}`,
      'drop --builtin to run the file, or give a name from ll-loop list --builtin',
    );
  const file = builtinLoopFile(target);
  if (file !== undefined) return file;
  const names = builtinLoopNames();
  throw new UsageError(
    `--builtin: there is no built-in loop named "${target}"${didYouMean(target, names)}; built-in: ${names.join(', ') || 'none'}`,
    'give a name from ll-loop list --builtin, or drop --builtin for a loop of .loops/',
  );
}

/**
 * `--follow`/`-f`: a run in the foreground already shows its progress as it goes, so the flag
 * asks for what happens anyway; it is refused where nothing would be followed.
 */
export function checkFollow(ctx: CommandContext): void {
  if (!bool(ctx, 'follow')) return;
  const against = ['background', 'json', 'quiet', 'qt'].find((f) => bool(ctx, f));
  if (against === 'background')
    throw new UsageError(
      '--follow and --background contradict each other: a background run returns at once',
      'drop --background to follow the run here, or follow it later with ll-loop status <run id> --follow',
    );
  if (against !== undefined)
    throw new UsageError(
      `--follow and --${against} contradict each other: --${against} shows no progress`,
      `drop one of them (a run shows its progress without --follow)`,
    );
}

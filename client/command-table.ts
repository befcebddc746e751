/**
 * The command table: one entry per `ll-loop` subcommand. Each entry declares its flags (parsed by
 * node:util parseArgs, strict) and a handler that returns the exit code. Adding a command means
 * adding one file under client/commands/ and one entry here.
 */
import type { ParseArgsConfig } from 'node:util';
import type { EarlyStart } from '../runs/start/early-start.js';
import { UsageError } from '../errors/errors.js';

export type Flags = NonNullable<ParseArgsConfig['options']>;

/**
 * Where the CLI writes: `process.stdout`/`process.stderr` in the bin, a string buffer in tests.
 * `isTTY` and `columns` describe a terminal when the sink is one (colour, width, prompts).
 */
export interface OutputSink {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** What `out` writes to: whether it is a terminal, and how wide. */
type Terminal = Pick<OutputSink, 'isTTY' | 'columns'>;

export interface CommandContext {
  /** The project root (the nearest `.loops/` or git root above where ll-loop was started). */
  cwd: string;
  /** The directory ll-loop was started in: for paths the user typed (`compile -o`). */
  invokedIn?: string;
  positionals: string[];
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The sink behind `out`, for colour and width decisions; commands never write to it directly. */
  terminal: Terminal;
  /** `run`'s start, already asked of the checkout's worker by the bin (runs/start/early-start.ts). */
  early?: EarlyStart;
}

export interface CommandSpec {
  /** One line for `ll-loop help`, e.g. `validate <name|path> [--json]   check a loop`. */
  usage: string;
  flags: Flags;
  run(ctx: CommandContext): Promise<number> | number;
}

export const JSON_FLAG: Flags = { json: { type: 'boolean' } };

/** Helpers for reading parsed values with the right types. */
export function str(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function bool(ctx: CommandContext, name: string): boolean {
  return ctx.values[name] === true;
}

export function list(ctx: CommandContext, name: string): string[] {
  const v = ctx.values[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * The one loop a command is given (its only positional), or a usage error: none given (fix:
 * `ll-loop <command> <name>`), or more than one (fix: `extraFix`).
 */
export function oneLoopTarget(ctx: CommandContext, command: string, extraFix: string): string {
  const target = ctx.positionals[0];
  if (target === undefined) throw new UsageError(`${command} needs a loop name or path`, `ll-loop ${command} <name>`);
  if (ctx.positionals.length > 1)
    throw new UsageError(`unexpected arguments: ${ctx.positionals.slice(1).join(' ')}`, extraFix);
  return target;
}

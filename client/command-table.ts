/**
 * The command table: one entry per `ll-loop` subcommand. Each entry declares its flags (parsed by
 * node:util parseArgs, strict) and a handler that returns the exit code. Adding a command means
 * adding one file under client/commands/ and one entry here.
 */
import type { ParseArgsConfig } from 'node:util';

export type Flags = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  cwd: string;
  positionals: string[];
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
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

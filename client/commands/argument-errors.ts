/**
 * Our own words for what node:util parseArgs refuses (its messages name no command and end in an
 * unbalanced quote), and for a first word that is neither a command nor a loop: what was wrong,
 * for which command, and the closest option or command as the fix.
 */
import { closest } from '../../fsm/suggest.js';
import type { Flags } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';

/** How each flag of `flags` is written: `--name` and, when it has one, `-x`. */
function spellings(flags: Flags): string[] {
  return Object.entries(flags).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
}

/** The flag `written` (`--name`, `-x`, `--name=value`) stands for, if any. */
function flagOf(written: string, flags: Flags): [string, Flags[string]] | undefined {
  const bare = written.replace(/=.*$/, '');
  return Object.entries(flags).find(
    ([name, o]) => bare === `--${name}` || (o.short !== undefined && bare === `-${o.short}`),
  );
}

/**
 * The usage error for `err`, thrown by parseArgs for the arguments of `ll-loop <command>`.
 * `extra`: spellings accepted besides the command's flags (`--help`).
 */
export function argumentError(
  err: unknown,
  command: string,
  flags: Flags,
  extra: readonly string[] = ['--help'],
): UsageError {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string } | undefined)?.code;
  const where = `ll-loop ${command}`;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(message)?.[1] ?? message;
    const hit = closest(option.replace(/=.*$/, ''), [...spellings(flags), ...extra]);
    return new UsageError(
      `unknown option ${option} for ${where}`,
      hit === undefined
        ? `see ll-loop help ${command} for its options (a value starting with "-" goes after --)`
        : `did you mean ${hit}?`,
    );
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const written = /'([^']+)'/.exec(message)?.[1] ?? '';
    const long = /--[\w-]+/.exec(written)?.[0] ?? written;
    const flag = flagOf(long, flags);
    if (flag?.[1].type === 'boolean')
      return new UsageError(`${long} of ${where} takes no value`, `write ${long} alone`);
    return new UsageError(
      `${long} of ${where} needs a value`,
      `write ${long} VALUE (quote values that contain spaces)`,
    );
  }
  return new UsageError(`${message.replace(/\.$/, '')} (${where})`, `see ll-loop help ${command}`);
}

/** A flag's whole number of 1 or more (up to the largest a loop file takes), refused naming the flag. */
export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\s*\+?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(
      `${flag} must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}, got "${value}"`,
      `e.g. ${flag} 50`,
    );
  return n;
}

/**
 * `args` with a negative number after a flag that takes a value joined to it (`--max-iterations
 * -1` → `--max-iterations=-1`): parseArgs reads `-1` as an option and says the flag has no value,
 * where the value itself is what is wrong (the command's own check then names it). No flag is
 * written as a number, so nothing else is changed; nothing after `--` is touched.
 */
export function negativeValuesJoined(args: readonly string[], flags: Flags): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--') return [...out, ...args.slice(i)];
    const next = args[i + 1];
    const flag = arg.startsWith('-') && !arg.includes('=') ? flagOf(arg, flags) : undefined;
    if (flag?.[1].type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
      continue;
    }
    out.push(arg);
  }
  return out;
}

/**
 * The usage error for `ll-loop <word>` when `word` is no command and no loop, if it is closer to a
 * command than to any loop (a typo: `ll-loop statsu`). Undefined otherwise: the word is then read
 * as a loop name (`ll-loop <name>` = `ll-loop run <name>`), whose own error suggests the closest loop.
 */
export function unknownCommandError(
  word: string,
  commands: readonly string[],
  loops: readonly string[],
): UsageError | undefined {
  const hit = closest(word, [...commands, ...loops]);
  if (hit === undefined || !commands.includes(hit)) return undefined;
  return new UsageError(
    `unknown command "${word}" (and no loop of that name)`,
    `did you mean ll-loop ${hit}? (ll-loop help lists the commands)`,
  );
}

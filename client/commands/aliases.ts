/**
 * little-loops' short names of commands: `ll-loop r fix-types` is `ll-loop run fix-types`. Each
 * stands for a command of the table (client/commands/index.ts) and is no command, flag or alias of
 * its own: `s` is `show` (as in little-loops), never `status`, `stop`, `server` or `schedule`;
 * `st` is `status`; `t` is `test`. A loop named like an alias is run with `ll-loop run <name>`.
 */
export const ALIASES: Readonly<Record<string, string>> = {
  r: 'run',
  val: 'validate',
  l: 'list',
  st: 'status',
  res: 'resume',
  h: 'history',
  t: 'test',
  sim: 'simulate',
  s: 'show',
};

/** The command `word` names: itself, or the command it is an alias of. */
export function commandOf(word: string): string {
  return Object.hasOwn(ALIASES, word) ? ALIASES[word]! : word;
}

/** The aliases of `command` (none for most). */
export function aliasesOf(command: string): string[] {
  return Object.entries(ALIASES)
    .filter(([, c]) => c === command)
    .map(([a]) => a);
}

/** One line for `ll-loop help`: every alias and its command. */
export function aliasesLine(): string {
  return Object.entries(ALIASES)
    .map(([a, c]) => `${a} = ${c}`)
    .join(', ');
}

/**
 * The usage line of every command without loading the commands: `ll-loop --help` must answer in
 * well under a second, and loading every command's module (most of them load the Temporal SDK)
 * takes about one. `npm run build` writes the lines, taken from the specs themselves, next to the
 * compiled table (write-usage.ts); when that file is missing (running from source) or does not
 * list exactly the commands of the table, the specs are loaded as before.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allCommands, COMMANDS } from './index.js';

/** Where the build writes the usage lines (beside this module, so dist/ has its own). */
export const USAGE_FILE = join(dirname(fileURLToPath(import.meta.url)), 'usage.json');

/** The usage lines as the build wrote them, if they match the command table. */
function written(): Record<string, string> | undefined {
  try {
    const lines = JSON.parse(readFileSync(USAGE_FILE, 'utf8')) as Record<string, string>;
    const names = Object.keys(COMMANDS);
    const same = names.length === Object.keys(lines).length && names.every((n) => typeof lines[n] === 'string');
    return same ? lines : undefined;
  } catch {
    return undefined;
  }
}

/** Every command's usage line, in the table's order. */
export async function usageLines(): Promise<Array<[string, string]>> {
  const lines = written();
  if (lines) return Object.keys(COMMANDS).map((n) => [n, lines[n]!]);
  return (await allCommands()).map(([n, spec]) => [n, spec.usage]);
}

/** One command's usage line. */
export async function usageOf(name: string): Promise<string> {
  return written()?.[name] ?? (await COMMANDS[name]!()).usage;
}

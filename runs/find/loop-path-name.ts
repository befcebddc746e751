/**
 * The loop name a loop file's path stands for, for the commands that take a loop name:
 * `ll-loop status .loops/fix.yaml` after `ll-loop run .loops/fix.yaml` means that loop's runs,
 * which go by its `name:` (`fix-<time>`), not by the path.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

/** Larger files are no loop of ours to read here (a run could not carry one). */
const MOST_BYTES = 4 * 1024 * 1024;

/** The `name:` of the loop file `target` names from `cwd`; undefined when it names none. */
export function loopNameOfPath(target: string, cwd: string): string | undefined {
  if (!/\.ya?ml$/i.test(target)) return undefined;
  const file = resolve(cwd, target);
  try {
    const stat = statSync(file);
    if (!stat.isFile() || stat.size > MOST_BYTES) return undefined;
    const raw = parse(readFileSync(file, 'utf8')) as { name?: unknown } | null;
    return typeof raw?.name === 'string' && raw.name.trim() !== '' ? raw.name : undefined;
  } catch {
    return undefined;
  }
}

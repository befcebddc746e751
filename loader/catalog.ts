/**
 * The built-in catalog: generic loops shipped with the package in `loops/`, runnable with
 * ordinary tools. A name resolves to `.loops/<name>.yaml` first, then here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

export const BUILTIN_LOOPS_DIR = join(PACKAGE_ROOT, 'loops');

/** What a loop name may be: it becomes a file name in `.loops/` and part of workflow ids. */
const LOOP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Whether `name` can name a loop file (no path separators, no leading dot). */
export function isLoopName(name: string): boolean {
  return LOOP_NAME.test(name) && !name.endsWith('.yaml') && !name.endsWith('.yml');
}

/** Names of the built-in loops (files ending in .yaml), sorted. */
export function builtinLoopNames(): string[] {
  if (!existsSync(BUILTIN_LOOPS_DIR)) return [];
  return readdirSync(BUILTIN_LOOPS_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

/** The file of built-in loop `name`, if there is one. */
export function builtinLoopFile(name: string): string | undefined {
  if (!LOOP_NAME.test(name)) return undefined;
  const file = join(BUILTIN_LOOPS_DIR, `${name}.yaml`);
  return existsSync(file) ? file : undefined;
}

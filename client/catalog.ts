/**
 * The built-in catalog: generic loops shipped with the package in `loops/`, runnable with
 * ordinary tools. A name resolves to `.loops/<name>.yaml` first, then here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../worker/paths.js';

export const BUILTIN_LOOPS_DIR = join(PACKAGE_ROOT, 'loops');

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
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) return undefined;
  const file = join(BUILTIN_LOOPS_DIR, `${name}.yaml`);
  return existsSync(file) ? file : undefined;
}

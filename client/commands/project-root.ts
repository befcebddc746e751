/**
 * Where a command works: the project (checkout) that holds the directory it was started in, found
 * like git finds its repository (the nearest `.loops/`, else the nearest git root; the directory
 * itself when neither exists). Loops, runs, the worker and scope paths are the project's; a path
 * the user typed is still the user's: it is made absolute against the directory they typed it in.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { findCheckoutRoot } from '../../worker/checkout.js';

export interface Invocation {
  /** The project root: every command's `cwd`. */
  root: string;
  /** The positionals, with each one naming a file under the invoking directory made absolute. */
  positionals: string[];
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The project of `invokedIn` and the positionals as the command must read them from there. Only
 * positionals that name an existing file relative to `invokedIn` change (a loop file given by
 * path): names of loops, run ids and words are left alone.
 */
export function projectInvocation(invokedIn: string, positionals: readonly string[]): Invocation {
  const here = resolve(invokedIn);
  const root = findCheckoutRoot(here) ?? here;
  if (root === here) return { root, positionals: [...positionals] };
  return { root, positionals: positionals.map((p) => (!isAbsolute(p) && isFile(resolve(here, p)) ? resolve(here, p) : p)) };
}

/**
 * Where a command works: the project (checkout) that holds the directory it was started in, found
 * like git finds its repository (the nearest `.loops/`, else the nearest git root; the directory
 * itself when neither exists). Loops, runs, the worker and scope paths are the project's; a path
 * the user typed is still the user's: it is made absolute against the directory they typed it in.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { findCheckoutRoot } from '../../host/checkout.js';

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

/** Written as a path: with a directory part, or a loop file's extension (`draft.yaml`). */
function looksLikePath(word: string): boolean {
  return word.includes(sep) || word.includes('/') || /\.ya?ml$/.test(word);
}

/**
 * The project of `invokedIn` and the positionals as the command must read them from there. Only
 * a positional written as a path (see {@link looksLikePath}) that names an existing file relative
 * to `invokedIn` changes: names of loops and commands, run ids and other words are left alone,
 * even when a file of that name happens to be there (`ll-loop create fix` beside a file `fix`).
 */
export function projectInvocation(invokedIn: string, positionals: readonly string[]): Invocation {
  const here = resolve(invokedIn);
  const root = findCheckoutRoot(here) ?? here;
  if (root === here) return { root, positionals: [...positionals] };
  return {
    root,
    positionals: positionals.map((p) =>
      !isAbsolute(p) && looksLikePath(p) && isFile(resolve(here, p)) ? resolve(here, p) : p,
    ),
  };
}

/**
 * The project whose runs a loop name means: its checkout key and root directory. Light on
 * purpose (no Temporal SDK): a command that asks the checkout's worker names its project with it.
 */
import { resolve } from 'node:path';
import { checkoutKey } from '../../host/checkout.js';

export interface ProjectScope {
  key: string;
  root: string;
}

/** The project rooted at `root` (a command's `cwd`) on this host. */
export function projectScope(root: string): ProjectScope {
  return { key: checkoutKey(root), root: resolve(root) };
}

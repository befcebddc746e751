/**
 * What every `worker install|uninstall|status|stop` runs with: the checkout it is about, the
 * environment and platform it reads (the process's own in the CLI; a temporary HOME, PATH and
 * platform in tests), and where it writes.
 */
import { resolve } from 'node:path';
import { findCheckoutRoot } from '../../host/checkout.js';
import { UsageError } from '../../errors/errors.js';

export interface ServiceContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  json: boolean;
  out: (text: string) => void;
  /** Progress and notes that are not the command's result (kept off stdout for --json and --dry-run). */
  err: (text: string) => void;
}

/** The checkout holding `cwd` (nearest `.loops/`, else `.git`); `cwd` itself when there is none. */
export function checkoutRootOf(cwd: string): string {
  return findCheckoutRoot(cwd) ?? resolve(cwd);
}

/** The checkout holding `cwd`; a service is only installed for one. */
export function requireCheckoutRoot(cwd: string): string {
  const root = findCheckoutRoot(cwd);
  if (!root)
    throw new UsageError(
      `${resolve(cwd)} is in no checkout (no .loops/ or .git here or above): there is nothing for a worker to serve`,
      'run it in your project (where .loops/ is), or create .loops/ there first',
    );
  return root;
}

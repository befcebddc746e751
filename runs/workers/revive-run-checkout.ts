/**
 * A run named by its id from another project of this host (`answer`, `pause`, `unpause`, `steer`):
 * the command brings the run's checkout worker back as a command in the run's own project would
 * (reviveCheckoutWorker: only where a worker served that checkout before and none of this build
 * serves it now), so that a run id reaches its run from anywhere by one rule, its worker gone
 * (killed, a reboot) or not. The command's own project is revived by every command already.
 */
import { existsSync } from 'node:fs';
import { findCheckoutRoot, hostId } from '../../host/checkout.js';
import { reviveCheckoutWorker } from './checkout-worker.js';

/** The project root of a `LoopCheckout` value (`<host>:<absolute root>`) when it is on this host. */
export function rootOnThisHost(checkout: string | undefined, host: string = hostId()): string | undefined {
  if (checkout === undefined || !checkout.startsWith(`${host}:/`)) return undefined;
  return checkout.slice(host.length + 1);
}

/** Revive the checkout worker of the run's project when it is another project of this host. Never throws. */
export function reviveRunCheckout(run: { checkout?: string }, cwd: string): void {
  try {
    const root = rootOnThisHost(run.checkout);
    if (root === undefined || root === findCheckoutRoot(cwd) || !existsSync(root)) return;
    reviveCheckoutWorker(root);
  } catch {
    // A courtesy, as reviving the command's own project is: the command goes on either way.
  }
}

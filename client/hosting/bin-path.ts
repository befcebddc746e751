/**
 * The installed entry point, for the processes ll-loop starts of itself: the checkout's worker
 * (client/hosting/checkout-worker.ts) and the user service's command line (client/service/).
 */
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../host/paths.js';

/** The installed entry point, run with the current Node. */
export const LL_LOOP_BIN = join(PACKAGE_ROOT, 'bin', 'll-loop.js');

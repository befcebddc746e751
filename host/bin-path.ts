/**
 * The installed entry point, for the processes ll-loop starts of itself: the checkout's worker
 * (runs/workers/checkout-worker.ts) and the user service's command line (worker/service/).
 */
import { join } from 'node:path';
import { PACKAGE_ROOT } from './paths.js';

/** The installed entry point, run with the current Node. */
export const LL_LOOP_BIN = join(PACKAGE_ROOT, 'bin', 'll-loop.js');

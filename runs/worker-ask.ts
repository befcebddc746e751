/**
 * Whether a command may ask this checkout's worker over its socket (host/worker-socket.ts;
 * the asking: runs/transport/ask.ts) instead of connecting to Temporal: only a worker of this
 * very build, serving this checkout and polling the embedded server this command would use; an
 * external server's connection settings (TLS, API key, namespace) are the command's own.
 * `LL_START_SOCKET=0` never asks.
 */
import { codeId } from '../host/build-info.js';
import { liveWorkerRecord } from '../host/checkout-claim.js';
import { findCheckoutRoot, type WorkerRecord } from '../host/checkout.js';
import { socketPathUsable, startSocketPath } from '../host/worker-socket.js';
import { embeddedServerOptions } from '../temporal/embedded.js';

/** The checkout's worker a command may ask: its socket, and what a request names to be served. */
export interface CheckoutWorkerTarget {
  path: string;
  /** The embedded server's `host:port` (the worker refuses a request for another). */
  address: string;
  /** The checkout root (the worker refuses another checkout's request). */
  root: string;
  /** This command's build (the worker refuses another build's request). */
  code_id: string;
  /** The worker's record (its pid and host). */
  worker: WorkerRecord;
}

/**
 * Whether a command may ask its checkout's worker at all: not with `LL_START_SOCKET=0`, nor on an
 * external server (its connection settings are the command's own).
 */
export function mayAskWorker(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LL_START_SOCKET !== '0' && !env.TEMPORAL_ADDRESS?.trim();
}

/**
 * Where this checkout's worker would listen, when a command may ask it at all ({@link
 * mayAskWorker}), and the socket's path is not too long.
 */
export function checkoutWorkerRoute(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Omit<CheckoutWorkerTarget, 'worker'> | undefined {
  if (!mayAskWorker(env)) return undefined;
  const address = `127.0.0.1:${embeddedServerOptions(cwd, env).port}`;
  const root = findCheckoutRoot(cwd) ?? cwd;
  const path = startSocketPath(root);
  if (!socketPathUsable(path)) return undefined;
  return { path, address, root, code_id: codeId() };
}

/** The worker to ask, or undefined when the command must do the work itself. */
export function checkoutWorkerTarget(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): CheckoutWorkerTarget | undefined {
  const route = checkoutWorkerRoute(cwd, env);
  if (route === undefined) return undefined;
  const worker = liveWorkerRecord(route.root);
  if (!worker || worker.code_id !== route.code_id || worker.address !== route.address) return undefined;
  return { ...route, worker };
}

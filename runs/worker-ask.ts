/**
 * Whether a command may ask this checkout's worker over its socket (host/worker-socket.ts;
 * the asking: runs/transport/ask.ts) instead of connecting to Temporal: only a worker of this
 * very build, serving this checkout and polling the embedded server this command would use; an
 * external server's connection settings (TLS, API key, namespace) are the command's own. Whether
 * to ask at all is the runs service's choice ({@link choosesWorker}).
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

/** On an external server (TEMPORAL_ADDRESS) the checkout's worker is never asked: its connection settings are the command's own. */
function onEmbeddedServer(env: NodeJS.ProcessEnv): boolean {
  return !env.TEMPORAL_ADDRESS?.trim();
}

/**
 * The runs service's choice of implementation (runs/service/runs-service.ts), which the bin's
 * early start (runs/start/early-start.ts, the service's start asked before the CLI loads) follows
 * too: through the checkout's worker, unless on an external server or with `LL_START_SOCKET=0`
 * (a switch for comparing both implementations, not for users). The one place it is read; here,
 * not in runs-service.ts, because the early start may not import the service (eslint/layers.js).
 */
export function choosesWorker(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LL_START_SOCKET !== '0' && onEmbeddedServer(env);
}

/** Where this checkout's worker would listen (on the embedded server only), when the socket's path is not too long. */
export function checkoutWorkerRoute(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Omit<CheckoutWorkerTarget, 'worker'> | undefined {
  if (!onEmbeddedServer(env)) return undefined;
  const address = `127.0.0.1:${embeddedServerOptions(cwd, env).port}`;
  const root = findCheckoutRoot(cwd) ?? cwd;
  const path = startSocketPath(root);
  if (!socketPathUsable(path)) return undefined;
  return { path, address, root, code_id: codeId() };
}

/**
 * The worker that started a run for this command (its record as it answered the start), to
 * follow the run through; undefined when it is of another build or its socket path is unusable.
 */
export function startingWorkerTarget(worker: WorkerRecord): CheckoutWorkerTarget | undefined {
  const path = startSocketPath(worker.root);
  if (worker.code_id !== codeId() || !socketPathUsable(path)) return undefined;
  return { path, address: worker.address, root: worker.root, code_id: codeId(), worker };
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

/**
 * Asking this checkout's worker over its socket (host/worker-socket.ts) instead of connecting to
 * Temporal: the worker already holds a client, so a command that only reads (`inbox`, `status`)
 * then loads no Temporal SDK. Only a worker of this very build, serving this checkout and polling
 * the embedded server this command would use is asked; an external server's connection settings
 * (TLS, API key, namespace) are the command's own. Any failure — no such worker, a stale socket
 * (nobody listens), a refusal, a line that is not JSON, no answer in time — is undefined: the
 * command then does the work itself and reports its own errors. `LL_START_SOCKET=0` never asks.
 */
import { createConnection } from 'node:net';
import { codeId } from '../host/build-info.js';
import { liveWorkerRecord } from '../host/checkout-claim.js';
import { findCheckoutRoot, type WorkerRecord } from '../host/checkout.js';
import { socketPathUsable, startSocketPath } from '../host/worker-socket.js';
import { embeddedServerOptions } from './temporal/embedded.js';

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
 * Where this checkout's worker would listen, when a command may ask it at all: not with
 * `LL_START_SOCKET=0`, nor on an external server, nor when the socket's path is too long.
 */
export function checkoutWorkerRoute(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Omit<CheckoutWorkerTarget, 'worker'> | undefined {
  if (env.LL_START_SOCKET === '0' || env.TEMPORAL_ADDRESS?.trim()) return undefined;
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

/** What every request to the checkout's worker names, so that another build, server or checkout refuses it. */
export interface WorkerAddressed {
  code_id: string;
  address: string;
  root: string;
}

/**
 * Ask this checkout's worker for a read (`status`, `logs`, `history`, `inbox`): the request with
 * the fields that address it filled in; undefined when there is no such worker or on any failure,
 * and the command then does the work itself.
 */
export async function askCheckoutWorker<Request extends WorkerAddressed, Reply>(
  cwd: string,
  env: NodeJS.ProcessEnv,
  body: Omit<Request, keyof WorkerAddressed>,
  timeoutMs: number,
): Promise<Reply | undefined> {
  const worker = checkoutWorkerTarget(cwd, env);
  if (worker === undefined) return undefined;
  const { path, code_id, address, root } = worker;
  return askWorkerOnce<Reply>(path, { ...body, code_id, address, root }, timeoutMs);
}

/** One request line, one answer line; undefined on any failure (a read changed nothing anywhere). */
export function askWorkerOnce<Reply>(path: string, request: object, timeoutMs: number): Promise<Reply | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    // The answer so far, in pieces: a report (`logs` of a long run) can be many MB, and looking
    // for its end again in the whole text at every piece would take time quadratic in its size.
    const pieces: string[] = [];
    const done = (reply: Reply | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      const end = chunk.indexOf('\n');
      if (end < 0) {
        pieces.push(chunk);
        return;
      }
      pieces.push(chunk.slice(0, end));
      try {
        done(JSON.parse(pieces.join('')) as Reply);
      } catch {
        done(undefined);
      }
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
  });
}

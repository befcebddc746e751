/**
 * The checkout worker's socket (host/worker-socket.ts): where the commands of its checkout ask it
 * to start a run, follow one, or make a report they would make themselves (the requests and their
 * handlers: worker/socket/requests.ts; each connection: worker/socket/dispatch.ts). The
 * worker already holds a Temporal client, so the command loads no Temporal SDK and opens no
 * connection. This file opens the socket, counts the requests in flight (a draining worker
 * answers them first) and closes it.
 */
import { loadedTracing } from '../tracing-config.js';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { Checkout } from '../../host/checkout.js';
import { socketPathUsable, startSocketDir, startSocketPath } from '../../host/worker-socket.js';
import { StartQueueRunner } from './start-queue-runner.js';
import type { RunArgvParser } from '../../runs/start/start-from-argv.js';
import type { Session } from '../../temporal/session.js';
import { dispatch } from './dispatch.js';

export interface StartSocket {
  /** Stop taking requests (draining: a command then starts a successor worker). */
  close(): void;
  /**
   * When a command last asked (epoch ms); now while a request is being answered. The idle clock
   * counts from it: a command that found this worker is about to hand it work.
   */
  lastActivityMs(): number;
  /** Resolves once the requests taken before `close` are answered, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
}

/** Listen on the checkout's start socket; undefined (and logged) when it cannot. */
export function listenForStarts(
  session: Session,
  workerConnection: NativeConnection,
  checkout: Checkout,
  log: (line: string) => void,
  /** `run`'s parser, for early starts (runs/start/early-start.ts); without it they are refused. */
  parseRun?: RunArgvParser,
): StartSocket | undefined {
  const path = startSocketPath(checkout.root);
  if (!socketPathUsable(path)) {
    log(`the start socket's path is too long for a Unix socket (${path}); ll-loop run starts runs itself`);
    return undefined;
  }
  try {
    // Only its owner may enter: a request runs shell actions as this user.
    mkdirSync(startSocketDir(checkout.root), { recursive: true, mode: 0o700 });
    chmodSync(startSocketDir(checkout.root), 0o700);
    // A predecessor's socket (it died without closing it) is stale: this worker owns the checkout.
    rmSync(path, { force: true });
  } catch (err) {
    log(`cannot prepare the start socket ${path}: ${(err as Error).message}; ll-loop run starts runs itself`);
    return undefined;
  }
  let open = true;
  // Requests being answered and when one last came: a start in flight must not see the worker
  // drain under it (its client's connection closed mid-call), and a command's ask is activity.
  let inFlight = 0;
  let lastRequestMs = 0;
  const idleWaiters = new Set<() => void>();
  const track = {
    begin: () => {
      inFlight += 1;
      lastRequestMs = Date.now();
    },
    end: () => {
      inFlight -= 1;
      lastRequestMs = Date.now();
      if (inFlight === 0) for (const wake of [...idleWaiters]) wake();
    },
  };
  // Started on the worker's own connection, the server may hand the run's first workflow task
  // back with the start's answer (eager start): no dispatch through matching.
  // A traced worker (worker/tracing.ts): each start is the root span of its run's trace.
  const traced = loadedTracing()?.clientTracing();
  const starter = new Client({
    connection: workerConnection,
    namespace: session.endpoint.namespace,
    ...(traced ? { interceptors: { workflow: traced } } : {}),
  });
  // `run --background`'s starts, queued and made from here (start-queue-runner.ts).
  const queue = new StartQueueRunner({ checkout, session, starter, log });
  const server: Server = createServer((socket) =>
    dispatch(socket, { session, starter, checkout, open: () => open, log, track, parseRun, queue }),
  );
  server.on('error', (err) => log(`the start socket ${path} failed: ${err.message}; ll-loop run starts runs itself`));
  server.listen(path);
  server.unref();
  return {
    close() {
      if (!open) return;
      open = false;
      queue.close();
      server.close();
      rmSync(path, { force: true });
    },
    // Queued starts are work to do: the worker is not idle while it has any.
    lastActivityMs: () => (inFlight > 0 || queue.size > 0 ? Date.now() : lastRequestMs),
    settled: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      await requestsSettled(timeoutMs);
      await queue.settled(Math.max(0, deadline - Date.now()));
    },
  };

  function requestsSettled(timeoutMs: number): Promise<void> {
    return inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            idleWaiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, timeoutMs);
          idleWaiters.add(done);
        });
  }
}

/**
 * The one way a long-lived worker process runs, whatever it serves (the checkout's queue:
 * serve-checkout.ts; a pool: serve-pool.ts; one task queue: queue-worker.ts): a worker connection
 * on the command's session, the kind's Temporal workers with the logging event hub, the sweep of
 * run environments and the watch over the server, served until stopped (serve-until-stopped.ts),
 * then everything closed in reverse order. A kind says only what it serves and what it does when
 * polling starts and stops.
 */
import { loadedTracing } from '../tracing-config.js';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { serverKey } from '../../host/run-env.js';
import { startRunEnvSweeps } from '../run-env-sweep.js';
import { EXIT } from '../../errors/exit-codes.js';
import { connectWorkerConnection } from '../../temporal/worker-connection.js';
import { watchSessionServer } from '../../temporal/server-watch.js';
import type { Session } from '../../temporal/session.js';
import { serveUntilStopped } from './serve-until-stopped.js';
import { LoggingEventHub } from './worker-log.js';

/** What a kind of worker gets to build its workers with. */
export interface HostContext {
  session: Session;
  connection: NativeConnection;
  events: LoggingEventHub;
  log: (line: string) => void;
}

export interface WorkerKind {
  /** The Temporal workers of this process (one per task queue, sharing the connection). */
  workers(ctx: HostContext): Promise<Worker[]>;
  /** Polling has begun: publish a record, log where it serves. */
  started(ctx: HostContext): void;
  /** Draining has begun (no new work is taken): give up a claim. */
  draining?: () => void;
  /** Resolves with a reason when the process should drain without a signal (the run it serves closed). */
  stopWhen?: (ctx: HostContext) => Promise<string>;
  /** The workers have stopped (before the connections close): stop what the kind started. */
  stopped?: () => void | Promise<void>;
  /** Seconds running actions may take once draining begins (the workers' shutdown grace time). */
  graceSeconds: number;
}

/** A timestamped log line on `out`, as every long-lived worker writes them. */
export function workerLog(out: (text: string) => void): (line: string) => void {
  return (line) => out(`${new Date().toISOString()} ${line}\n`);
}

/** Serve `kind` on `session` until a signal (or its `stopWhen`) drains it; the session stays the caller's. */
export async function hostWorkers(
  session: Session,
  cwd: string,
  log: (line: string) => void,
  kind: WorkerKind,
): Promise<number> {
  const connection = await connectWorkerConnection(session.endpoint);
  try {
    const events = new LoggingEventHub(log);
    const ctx: HostContext = { session, connection, events, log };
    const workers = await kind.workers(ctx);
    // Environment files of runs that ended out of any worker's sight (worker/run-env-sweep.ts).
    const stopSweeps = startRunEnvSweeps({
      client: session.client,
      server: serverKey(session.endpoint.address, session.endpoint.namespace),
      log,
    });
    let watch: { stop(): Promise<void> } | undefined;
    try {
      await serveUntilStopped(workers, {
        log,
        graceSeconds: kind.graceSeconds,
        started: () => {
          kind.started(ctx);
          // The server this worker depends on: an outage is logged (once, then once a minute), and
          // the project's embedded server is restarted when it dies.
          watch = watchSessionServer(session.endpoint, cwd, log);
        },
        ...(kind.draining ? { draining: kind.draining } : {}),
        ...(kind.stopWhen ? { stopWhen: kind.stopWhen(ctx) } : {}),
      });
    } finally {
      await kind.stopped?.();
      await watch?.stop();
      stopSweeps();
      await events.close();
      // The spans still buffered (a traced worker: worker/tracing.ts) go before the process ends.
      await loadedTracing()?.flushTracing();
    }
    log('stopped');
    return EXIT.ok;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/**
 * A long-lived worker's watch over the Temporal server it depends on. Every second it checks that
 * the server's port still accepts connections. When it does not:
 *  - the outage is logged once when it begins, then once a minute, and once when it ends (the
 *    native core's own retry errors are silenced: worker/create-worker.ts);
 *  - the project's own embedded server (same data directory) that died without `ll-loop server
 *    stop` is started again, on its on-disk data, under the start lock every starter takes
 *    (temporal/dev-server.ts), so open runs continue within seconds. An external server
 *    (TEMPORAL_ADDRESS), another project's, or one stopped on purpose is only watched.
 *
 * The worker's Temporal connection needs nothing from here: the SDK retries its polls forever
 * and picks the server up again once it answers.
 */
import { diedWithoutStop, ensureDevServer, tcpOpen } from './dev-server.js';
import { embeddedServerOptions } from './embedded.js';

/** Where the embedded server this watch may restart lives (as for {@link ensureDevServer}). */
interface RestartableServer {
  dataDir: string;
  port: number;
  uiPort: number;
}

export interface ServerWatchOptions {
  /** host:port of the server the worker polls. */
  address: string;
  /** The project's embedded server on `address`, restartable; undefined: watch only. */
  embedded?: RestartableServer;
  log: (line: string) => void;
  /** Between checks (default 1 s). */
  intervalMs?: number;
  /** Between "still down" lines during an outage (default 60 s). */
  reminderMs?: number;
  /** Between restart attempts after one failed (default 5 s). */
  retryMs?: number;
}

export interface ServerWatch {
  /** Stop watching; resolves once a check under way has finished. */
  stop(): Promise<void>;
}

interface Outage {
  since: number;
  lastLine: number;
  nextRestart: number;
  lastError?: string;
  /** The server's pid file is gone: stopped on purpose, said once. */
  toldStopped?: boolean;
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** Start watching `opts.address`; see the file comment for what happens during an outage. */
export function watchServer(opts: ServerWatchOptions): ServerWatch {
  const intervalMs = opts.intervalMs ?? 1_000;
  const reminderMs = opts.reminderMs ?? 60_000;
  const retryMs = opts.retryMs ?? 5_000;
  const { address, embedded, log } = opts;
  let outage: Outage | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const ended = (how: string): void => {
    if (outage) log(`${how} after ${seconds(Date.now() - outage.since)} of outage`);
    outage = undefined;
  };

  const restart = async (o: Outage): Promise<void> => {
    if (!embedded || Date.now() < o.nextRestart) return;
    if (!diedWithoutStop(embedded.dataDir)) {
      if (!o.toldStopped)
        log(
          `the embedded Temporal server was stopped on purpose (ll-loop server stop): not restarting it; the next ll-loop command that needs it starts it again`,
        );
      o.toldStopped = true;
      return;
    }
    try {
      const server = await ensureDevServer({ ...embedded, log: () => undefined });
      ended(
        server.started
          ? `restarted the embedded Temporal server at ${address} (pid ${server.pid ?? '?'}, data ${embedded.dataDir})`
          : `the Temporal server at ${address} answers again (restarted by another ll-loop process)`,
      );
    } catch (err) {
      const why = (err as Error).message.split('\n')[0] ?? String(err);
      if (o.lastError === undefined)
        log(
          `could not restart the embedded Temporal server at ${address}: ${why}; trying again every ${seconds(retryMs)}`,
        );
      o.lastError = why;
      o.nextRestart = Date.now() + retryMs;
    }
  };

  const check = async (): Promise<void> => {
    if (await tcpOpen(address, 1_000)) return ended(`the Temporal server at ${address} answers again`);
    const now = Date.now();
    if (!outage) {
      outage = { since: now, lastLine: now, nextRestart: now };
      const restarting = embedded !== undefined && diedWithoutStop(embedded.dataDir);
      log(
        `the Temporal server at ${address} does not answer${restarting ? ` (the embedded server, data ${embedded.dataDir}): restarting it` : ': nothing runs until it is back'}`,
      );
    } else if (now - outage.lastLine >= reminderMs) {
      outage.lastLine = now;
      log(
        `the Temporal server at ${address} is still down (for ${seconds(now - outage.since)})${outage.lastError ? `; last restart attempt: ${outage.lastError}` : ''}`,
      );
    }
    await restart(outage);
  };

  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = check()
        .catch((err: unknown) =>
          log(`watching the Temporal server at ${address} failed once: ${(err as Error).message}`),
        )
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

/**
 * Watch the server a worker's session reached: the project's embedded server (not a foreign one
 * on its port, never TEMPORAL_ADDRESS's) may be restarted, any other only watched.
 */
export function watchSessionServer(
  endpoint: { address: string; mode?: 'external' | 'embedded'; foreign?: boolean },
  cwd: string,
  log: (line: string) => void,
): ServerWatch {
  const ours = endpoint.mode === 'embedded' && endpoint.foreign !== true;
  const { dataDir, port, uiPort } = embeddedServerOptions(cwd);
  return watchServer({ address: endpoint.address, ...(ours ? { embedded: { dataDir, port, uiPort } } : {}), log });
}

/**
 * `ll-loop worker --pool NAME`: a worker of a pool, on any number of machines. It polls the pool's
 * queue (workflow tasks of pool runs, and the claims of portable runs) and its own host queue
 * (the actions of the portable runs whose checkout it holds, under its data dir). Pinned runs'
 * actions never come here: they go to their checkout's worker (workflows/placement.ts).
 *
 * Two workers in one process, one per task queue, sharing a connection: Temporal's
 * worker-specific task queue pattern.
 */
import { join } from 'node:path';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { buildInfo } from '../../worker/build-info.js';
import { hostId, hostQueue, poolQueue, workerIdentity } from '../../worker/checkout.js';
import { createLoopWorker, installQuietRuntime } from '../../worker/create-worker.js';
import { stateDir } from '../../worker/run-env.js';
import { connectWorkerConnection } from '../temporal/connection.js';
import { EXIT } from '../exit-codes.js';
import { openSession } from '../temporal/session.js';
import { drainSeconds, serveUntilStopped } from './serve-until-stopped.js';
import { checkPoolName } from '../runs/where-to-run.js';
import { startRunEnvSweeps } from '../../worker/run-env-sweep.js';
import { serverKey } from '../../worker/run-env.js';
import { LoggingEventHub } from './worker-log.js';

export interface ServePoolOptions {
  cwd: string;
  pool: string;
  out: (text: string) => void;
}

/** `LL_WORKER_DATA_DIR`, else `<state dir>/pools/<pool>/<host>`: where portable runs' checkouts go. */
export function poolDataDir(pool: string, host: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.LL_WORKER_DATA_DIR || join(stateDir(env), 'pools', pool, host);
}

export async function servePool(opts: ServePoolOptions): Promise<number> {
  const log = (line: string) => opts.out(`${new Date().toISOString()} ${line}\n`);
  const pool = checkPoolName(opts.pool);
  const host = hostId();
  const build = buildInfo();
  installQuietRuntime();
  const session = await openSession(opts.cwd);
  let native: NativeConnection | undefined;
  try {
    native = await connectWorkerConnection(session.endpoint);
    const identity = workerIdentity(process.pid, host, build.version);
    const place = { host, queue: hostQueue(pool, host), dataDir: poolDataDir(pool, host) };
    const events = new LoggingEventHub(log);
    const common = {
      connection: native,
      namespace: session.endpoint.namespace,
      events,
      identity,
      shutdownGraceTime: `${drainSeconds()}s`,
      activityDeps: { place },
    };
    const workers: Worker[] = [
      (await createLoopWorker({ ...common, taskQueue: poolQueue(pool) })).worker,
      (await createLoopWorker({ ...common, taskQueue: place.queue })).worker,
    ];
    // Environment files of runs that ended out of any worker's sight (worker/run-env-sweep.ts).
    const stopSweeps = startRunEnvSweeps({
      client: session.client,
      server: serverKey(session.endpoint.address, session.endpoint.namespace),
      log,
    });
    try {
      await serveUntilStopped(workers, {
        log,
        started: () =>
          log(
            `pool worker pid ${process.pid} on ${host} (ll-loop ${build.build_id}) serves pool ${pool} (queue ${poolQueue(pool)}) and its host queue ${place.queue}; checkouts under ${place.dataDir}`,
          ),
      });
    } finally {
      stopSweeps();
      await events.close();
    }
    log('stopped');
    return EXIT.ok;
  } finally {
    await native?.close().catch(() => undefined);
    await session.close();
  }
}

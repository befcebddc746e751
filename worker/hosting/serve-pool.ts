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
import { buildInfo } from '../../host/build-info.js';
import { hostId, hostQueue, poolQueue, workerIdentity } from '../../host/checkout.js';
import { createLoopWorker, installQuietRuntime } from '../create-worker.js';
import { serverKey, stateDir } from '../../host/run-env.js';
import { openSession } from '../../temporal/session.js';
import { drainSeconds } from './serve-until-stopped.js';
import { hostWorkers, workerLog } from './host-workers.js';
import { checkPoolName } from '../../runs/start/where-to-run.js';
import { refuseRetiredRuns } from './retired-runs.js';

export interface ServePoolOptions {
  cwd: string;
  pool: string;
  out: (text: string) => void;
}

/** `LL_WORKER_DATA_DIR`, else `<state dir>/pools/<pool>/<host>`: where portable runs' checkouts go. */
function poolDataDir(pool: string, host: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.LL_WORKER_DATA_DIR || join(stateDir(env), 'pools', pool, host);
}

export async function servePool(opts: ServePoolOptions): Promise<number> {
  const log = workerLog(opts.out);
  const pool = checkPoolName(opts.pool);
  const host = hostId();
  const build = buildInfo();
  installQuietRuntime();
  const session = await openSession(opts.cwd);
  try {
    const identity = workerIdentity(process.pid, host, build.version);
    const place = { host, queue: hostQueue(pool, host), dataDir: poolDataDir(pool, host) };
    await refuseRetiredRuns(session.client, [poolQueue(pool), place.queue], log);
    return await hostWorkers(session, opts.cwd, log, {
      graceSeconds: drainSeconds(),
      workers: async ({ connection, events }) => {
        const common = {
          connection,
          namespace: session.endpoint.namespace,
          server: serverKey(session.endpoint.address, session.endpoint.namespace),
          events,
          identity,
          shutdownGraceTime: `${drainSeconds()}s`,
          activityDeps: { place },
        };
        return [
          (await createLoopWorker({ ...common, taskQueue: poolQueue(pool) })).worker,
          (await createLoopWorker({ ...common, taskQueue: place.queue })).worker,
        ];
      },
      started: () =>
        log(
          `pool worker pid ${process.pid} on ${host} (ll-loop ${build.build_id}) serves pool ${pool} (queue ${poolQueue(pool)}) and its host queue ${place.queue}; checkouts under ${place.dataDir}`,
        ),
    });
  } finally {
    await session.close();
  }
}

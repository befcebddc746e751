/**
 * Starting a run on a Temporal connection: the runs service's `start` on the Temporal SDK
 * (runs/service/direct.ts), and `run`'s start on the connection it then follows on
 * (run-connected.ts). The run goes where its place says (where-to-run.ts: the checkout's worker,
 * started on demand, a pool or a queue), with its scope lock, and is answered once its worker
 * serves it (and, in the background, once its scope lock has: a busy scope is the start's error).
 */
import type { Client, Connection } from '@temporalio/client';
import type { WorkerRecord } from '../../host/checkout.js';
import type { TemporalEndpoint } from '../../temporal/connection.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import { scopesSettled } from '../scopes/scopes-settled.js';
import { lockRequestFor } from '../scopes/scope-lock.js';
import { queueWorkers } from '../workers/queue-pollers.js';
import { placeRun, type Placed, type RunPlace } from './where-to-run.js';
import { searchAttributesAvailable, startLoopRun, type LoopHandle } from './start-run.js';
import type { RunStart, StartedRun } from './run-start.js';

/** The connection a run is started on. */
export interface StartConnection {
  client: Client;
  connection: Connection;
  endpoint: TemporalEndpoint & { uiUrl?: string };
}

/** A run just started on the caller's connection: its handle, and its worker still coming up. */
export interface StartedOn extends Omit<StartedRun, 'worker'> {
  handle: LoopHandle;
  /** The checkout's worker that must serve it, while it comes up (undefined: a pool's or queue's run). */
  worker: Promise<WorkerRecord | undefined>;
}

/**
 * The run's scope lock: in its checkout's domain (a portable run: its repository's), granted by
 * the lock workflow on the queue that serves the run's workflow (the checkout's worker, or the pool).
 */
function lockOf(req: RunStart, placed: Placed): ScopeLockRequest | undefined {
  if (req.lock.none) return undefined;
  const { wait, queue_timeout_s: queueTimeoutS } = req.lock;
  return lockRequestFor(
    req.definition,
    { root: placed.checkout.root, lockDomain: placed.lockDomain, queue: placed.queue },
    { wait, ...(queueTimeoutS === undefined ? {} : { queueTimeoutS }) },
  );
}

/** Start the run on `on`; the checkout's worker (when it must serve the run) comes up meanwhile. */
export async function startOn(on: StartConnection, req: RunStart): Promise<StartedOn> {
  const { client, connection, endpoint } = on;
  // The checkout's worker (when it must serve the run) starts concurrently: time to the first action counts.
  const placed = await placeRun(req.place ?? { kind: 'checkout' }, req.cwd, endpoint.address);
  const lock = lockOf(req, placed);
  const searchAttributes = await searchAttributesAvailable(endpoint, connection, req.onNote);
  const started = await startLoopRun({
    client,
    definition: req.definition,
    file: req.file,
    cwd: req.cwd,
    taskQueue: placed.queue,
    options: placed.optionsFor,
    memo: placed.memo,
    searchAttributes,
    started: req.started,
    lock,
    env: req.env,
    dataContext: req.dataContext,
  });
  const { portable } = placed.optionsFor(started.instanceId);
  return {
    ...started,
    runId: started.handle.firstExecutionRunId,
    lock,
    place: placed.place,
    worker: placed.worker,
    by: 'caller',
    address: endpoint.address,
    namespace: endpoint.namespace,
    ...(endpoint.uiUrl ? { uiUrl: endpoint.uiUrl } : {}),
    ...(portable ? { portable } : {}),
  };
}

/**
 * The run started on `on` once it is served: its worker up (else the run is ended: nothing could
 * run it), a note when no worker polls a pool's or queue's queue yet, and in the background its
 * scope lock answered (a denial is thrown: exit 8, nobody follows the run to report it).
 */
export async function servedRun(on: StartConnection, started: StartedOn, req: RunStart): Promise<StartedRun> {
  const { handle, worker: serving, ...run } = started;
  const worker = await serving.catch(async (e: unknown) => {
    // Nothing can run the workflow without a worker: end it rather than leave it waiting.
    await handle.terminate(`ll-loop could not start a worker for it: ${(e as Error).message}`).catch(() => undefined);
    throw e;
  });
  if (run.place.kind !== 'checkout' && run.place.kind !== 'worktree')
    await warnWhenUnserved(on.client, run.taskQueue, run.place, req.onNote ?? (() => undefined));
  if (req.background) await scopesSettled(on.client, run.instanceId, run.lock);
  return { ...run, worker };
}

/** Say at once when no worker polls a pool's or shared queue: the run waits there until one does. */
async function warnWhenUnserved(
  client: Client,
  taskQueue: string,
  place: RunPlace,
  note: (t: string) => void,
): Promise<void> {
  const how =
    place.kind === 'pinned' || place.kind === 'portable'
      ? `ll-loop worker --pool ${place.pool}`
      : `ll-loop worker --task-queue ${taskQueue}`;
  // Bounded: a slow answer must not hold the run's progress back.
  const asked = queueWorkers(client, taskQueue)
    .then((workers) => {
      if (workers.length === 0)
        note(
          `note: no worker serves ${place.kind === 'queue' ? `task queue ${taskQueue}` : `pool ${(place as { pool: string }).pool}`} yet; the run waits until one does. Start one with: ${how}\n`,
        );
    })
    .catch(() => undefined);
  await Promise.race([asked, new Promise((r) => setTimeout(r, 3000).unref())]);
}

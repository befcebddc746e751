/**
 * `ll-loop worker` in a checkout: the checkout's long-lived worker. It polls the checkout's task
 * queue (host/checkout.ts) for workflow and activity tasks, so every run started from this
 * checkout is served by it, whichever terminal started it. Commands start it on demand, detached
 * (runs/workers/checkout-worker.ts); `ll-loop worker install` runs it as a user service.
 *
 * One worker per checkout: it claims `.loops/.worker/claim/` first. A live worker of the same build
 * and server wins (a second one exits with a message), and so does a newer build's (this one is
 * older: it exits, saying which version serves); one of another, not newer, build or of another
 * server is asked to drain (SIGTERM) and this one takes over as soon as the old one stops
 * polling. Draining: no new tasks are taken, running actions get `LL_WORKER_DRAIN_S` (default
 * 600 s) to finish; what is still running then is cancelled and retried by the new worker.
 * Nothing runs twice at once, since each task goes to one worker.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import { buildInfo, builtAt, codeId, isNewerBuild } from '../../host/build-info.js';
import {
  checkoutAt,
  findCheckoutRoot,
  hostId,
  workerIdentity,
  workerLogPath,
  type WorkerRecord,
} from '../../host/checkout.js';
import {
  liveClaimOwner,
  ownerBuild,
  releaseClaim,
  tryClaim,
  writeWorkerRecord,
  type ClaimOwner,
} from '../../host/checkout-claim.js';
import { NewerWorkerServesError } from '../../runs/workers/checkout-worker.js';
import { clearSpawnNote } from '../../host/worker-spawn-note.js';
import { createLoopWorker, installQuietRuntime } from '../create-worker.js';
import { failOverDeadWorkers, forgetStickyQueues } from '../fail-over.js';
import { serverKey, stateDir } from '../../host/run-env.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { openSession } from '../../temporal/session.js';
import { clusterProblemOf } from '../../errors/cluster-errors.js';
import { drainSeconds } from './serve-until-stopped.js';
import { hostWorkers, workerLog, type HostContext } from './host-workers.js';
import { handOverIfBusy, idleSeconds, watchIdle, type IdleWatch } from './idle-exit.js';
import { listenForStarts, type StartSocket } from '../socket/start-socket-server.js';
import { refuseRetiredRuns } from './retired-runs.js';
import type { RunArgvParser } from '../../runs/start/start-from-argv.js';

/** How long a replaced worker may take to stop polling before this one gives up. */
const HANDOVER_TIMEOUT_MS = 60_000;

export interface ServeCheckoutOptions {
  cwd: string;
  out: (text: string) => void;
  /** Started by a command (on demand) or the user service; foreground otherwise. */
  startedBy: WorkerRecord['started_by'];
  /** How `run`'s command line reads, for its early starts (without it the worker refuses them). */
  parseRun?: RunArgvParser;
}

/** `ll-loop worker` outside any checkout. */
class NotACheckoutError extends CliError {
  override readonly name = 'NotACheckoutError';
  constructor(cwd: string) {
    super(
      `${cwd} is not a checkout: neither it nor a parent directory has .loops/ or .git, so there is nothing for a checkout worker to serve`,
      'run it in your project (where .loops/ is), or serve a shared pool instead: ll-loop worker --pool NAME',
      EXIT.usage,
    );
  }
}

/** A second worker for a checkout that already has one. */
class CheckoutAlreadyServedError extends CliError {
  override readonly name = 'CheckoutAlreadyServedError';
  constructor(root: string, pid: number) {
    super(
      `a worker (pid ${pid}) already serves ${root}; one checkout has one worker`,
      `see it with: ll-loop worker status; stop it with: ll-loop worker stop`,
      EXIT.usage,
    );
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Claim the checkout, asking a worker of another build or server to hand over. */
async function claim(root: string, me: ClaimOwner, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + HANDOVER_TIMEOUT_MS;
  let asked = 0;
  for (;;) {
    const attempt = tryClaim(root, me);
    if (attempt.claimed) return;
    const owner = attempt.owner;
    if (owner.pid !== 0 && owner.code_id === me.code_id && owner.address === me.address)
      throw new CheckoutAlreadyServedError(root, owner.pid);
    if (owner.pid !== 0 && isNewerBuild(ownerBuild(owner), ownerBuild(me)))
      throw new NewerWorkerServesError(root, { ...owner, version: ownerBuild(owner).version });
    if (owner.pid !== 0 && asked !== owner.pid) {
      log(
        `replacing the worker pid ${owner.pid} (build ${owner.code_id}, server ${owner.address}): asking it to drain`,
      );
      try {
        process.kill(owner.pid, 'SIGTERM');
      } catch {
        // Gone already: the next attempt breaks its claim.
      }
      asked = owner.pid;
    }
    if (Date.now() > deadline) {
      throw new CliError(
        `the worker pid ${owner.pid} did not hand ${root} over within ${HANDOVER_TIMEOUT_MS / 1000} s`,
        `stop it (kill ${owner.pid}) and run the command again`,
        EXIT.infrastructure,
      );
    }
    await sleep(100);
  }
}

/** Serve the checkout until a signal. Returns the exit code. */
export async function serveCheckout(opts: ServeCheckoutOptions): Promise<number> {
  const log = workerLog(opts.out);
  const root = findCheckoutRoot(opts.cwd);
  if (!root) throw new NotACheckoutError(opts.cwd);
  const host = hostId();
  const checkout = checkoutAt(root, host);
  const build = buildInfo();
  installQuietRuntime();
  const session = await openSession(opts.cwd);
  const at = builtAt();
  const me: ClaimOwner = {
    pid: process.pid,
    build_id: build.build_id,
    code_id: codeId(),
    address: session.endpoint.address,
    version: build.version,
    ...(at === undefined ? {} : { built_at: at }),
  };
  let claimed = false;
  let startSocket: StartSocket | undefined;
  try {
    try {
      // Before the serving worker is asked to drain: it may be the one that can finish those runs.
      await refuseRetiredRuns(session.client, [checkout.queue], log);
      await claim(root, me, log);
    } catch (err) {
      clearSpawnNote(root, process.pid);
      // Started on demand while another command's worker came up: not an error of anyone's.
      if (
        (err instanceof CheckoutAlreadyServedError || err instanceof NewerWorkerServesError) &&
        opts.startedBy === 'on-demand'
      ) {
        log(`${err.message}; this one exits`);
        return EXIT.ok;
      }
      throw err;
    }
    claimed = true;
    // The claim stands for this worker from now on (host/worker-spawn-note.ts).
    clearSpawnNote(root, process.pid);
    const identity = workerIdentity(process.pid, host, build.version);
    const idleS = opts.startedBy === 'on-demand' ? idleSeconds() : undefined;
    let idleWatch: IdleWatch | undefined;
    const code = await hostWorkers(session, opts.cwd, log, {
      graceSeconds: drainSeconds(),
      workers: async ({ connection, events }) => {
        // While the worker loads: the runs a previous worker served stop waiting on its sticky queue.
        const unstuck = forgetStickyQueuesLogged(session.client, checkout.queue, log);
        const { worker } = await createLoopWorker({
          connection,
          namespace: session.endpoint.namespace,
          // Scheduled runs see their schedule's environment file (host/schedule-env.ts).
          server: serverKey(session.endpoint.address, session.endpoint.namespace),
          taskQueue: checkout.queue,
          events,
          identity,
          shutdownGraceTime: `${drainSeconds()}s`,
          ...stickyTimeout(),
          // `run --worktree`: this worker prepares the run's worktree and keeps its actions here.
          activityDeps: { place: { host, queue: checkout.queue, dataDir: stateDir() } },
        });
        await unstuck;
        return [worker];
      },
      started: ({ connection }) => {
        // Listening before the record is published: a command that finds the record can hand
        // this worker its start (runs/start/start-through-worker.ts) at once.
        startSocket = listenForStarts(session, connection, checkout, log, opts.parseRun);
        const record: WorkerRecord = {
          pid: process.pid,
          host,
          version: build.version,
          build_id: build.build_id,
          ...(at === undefined ? {} : { built_at: at }),
          code_id: me.code_id,
          root,
          queue: checkout.queue,
          address: session.endpoint.address,
          namespace: session.endpoint.namespace,
          identity,
          started_at: new Date().toISOString(),
          started_by: opts.startedBy,
        };
        writeWorkerRecord(root, record);
        log(
          `worker pid ${process.pid} (ll-loop ${me.code_id}) serves ${root} on task queue ${checkout.queue} at ${session.endpoint.address}`,
        );
        failOverDeadWorkersLogged(session.client, checkout.queue, host, log);
      },
      // Started by a command: gone when there is nothing to do (idle-exit.ts); the next command restarts it.
      ...(idleS === undefined
        ? {}
        : {
            stopWhen: ({ events }: HostContext) => {
              idleWatch = watchIdle({
                client: session.client,
                queue: checkout.queue,
                idleS,
                log,
                // A command's ask counts too: one that just found this worker is about to start a run.
                lastActivity: () => Math.max(events.lastEventMs, startSocket?.lastActivityMs() ?? 0),
              });
              return idleWatch.idle;
            },
            // A start taken before draining is answered before the connection it starts on closes.
            stopped: async () => {
              idleWatch?.stop();
              await startSocket?.settled(START_SETTLE_MS);
            },
          }),
      // The checkout is free for a successor as soon as this worker stops polling.
      draining: () => {
        startSocket?.close();
        releaseClaim(root);
        claimed = false;
      },
    });
    // A run started while this worker was deciding it was idle would wait for the next command.
    if (idleWatch?.fired) await handOverIfBusy(session.client, checkout.queue, opts.cwd, root, log);
    return code;
  } catch (err) {
    // A server not set up for ll-loop (no namespace): every command starts this worker again, and
    // says what is wrong itself; the log gets one line with the fix, not a dump per command.
    const problem = opts.startedBy === 'on-demand' ? clusterProblemOf(err, session.endpoint.namespace) : undefined;
    if (!problem) throw err;
    const line = `cannot serve ${root}: ${problem.message}; fix: ${problem.fix}`;
    if (lastLogLine(workerLogPath(root)) !== line) log(line);
    return EXIT.infrastructure;
  } finally {
    startSocket?.close();
    if (claimed && liveClaimOwner(root)?.pid === process.pid) releaseClaim(root);
    await session.close();
  }
}

/** How long a draining worker waits for the starts its socket took before it closes their connection. */
const START_SETTLE_MS = 10_000;

/**
 * `LL_WORKER_STICKY_S`: how long a run's next task waits for this worker on its sticky queue
 * (worker/create-worker.ts); unset, the SDK's 10 s. The tests lengthen it to show that a worker's
 * death costs a command nothing whatever it is.
 */
function stickyTimeout(env: NodeJS.ProcessEnv = process.env): { stickyQueueScheduleToStartTimeout?: string } {
  const n = Number(env.LL_WORKER_STICKY_S);
  return env.LL_WORKER_STICKY_S !== undefined && Number.isFinite(n) && n > 0
    ? { stickyQueueScheduleToStartTimeout: `${n}s` }
    : {};
}

/** How long a starting worker waits for the sticky queues to be forgotten before it polls anyway. */
const FORGET_STICKY_WAIT_MS = 5_000;

/** The open runs' next tasks go to the checkout's queue, not to a previous worker's (worker/fail-over.ts). */
async function forgetStickyQueuesLogged(client: Client, queue: string, log: (line: string) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), FORGET_STICKY_WAIT_MS)));
  const done = forgetStickyQueues(client, queue).then(
    (runs) => {
      if (runs.length) log(`${runs.length} open run(s) of this checkout: their next tasks come to this worker at once`);
    },
    (err: unknown) => {
      // A server not set up for ll-loop: the worker cannot start either, and says so once itself.
      if (clusterProblemOf(err) !== undefined) return;
      log(
        `could not point the open runs at this worker's queue: ${(err as Error).message}; a task waiting for the previous worker moves here within 10 s`,
      );
    },
  );
  await Promise.race([done, late]);
  clearTimeout(timer);
}

/** Polling now: what a dead predecessor left running is run again here at once (worker/fail-over.ts). */
function failOverDeadWorkersLogged(client: Client, queue: string, host: string, log: (line: string) => void): void {
  void failOverDeadWorkers(client, queue, host).then(
    (failed) =>
      failed.forEach((f) =>
        log(`${f.workflowId}: action ${f.activityId} was running on the dead worker ${f.worker}; it runs again here`),
      ),
    (err: unknown) =>
      log(
        `could not look for actions of a dead worker: ${(err as Error).message}; Temporal retries them after their heartbeat timeout`,
      ),
  );
}

/** The last line of the log at `path` without its timestamp, or undefined (reads only its end). */
function lastLogLine(path: string): string | undefined {
  try {
    const size = statSync(path).size;
    const length = Math.min(size, 16 * 1024);
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      const last = buffer.toString('utf8').trimEnd().split('\n').at(-1);
      return last?.replace(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z /, '');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * The checkout's worker, started on demand like the embedded dev server: any command makes sure
 * a worker of this code serves the checkout (worker/hosting/serve-checkout.ts), spawning one
 * detached from the terminal when none does (or when the one that does is of another build or
 * server: the new one takes over — unless it is a newer build's, which an older one never
 * replaces). `run` waits for it; other commands only revive it, so that the
 * open runs of a checkout continue by themselves after a crash or a reboot.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { buildInfo, codeId, isNewerBuild, thisBuild } from '../../host/build-info.js';
import { findCheckoutRoot, workerDir, workerLogPath, type WorkerRecord } from '../../host/checkout.js';
import { liveClaimOwner, liveWorkerRecord, ownerBuild, pidAlive } from '../../host/checkout-claim.js';
import { liveSpawnNote, writeSpawnNote, type StartingWorker } from '../../host/worker-spawn-note.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { LL_LOOP_BIN } from '../../host/bin-path.js';
import { diedWithoutStop } from '../../temporal/server-pid.js';
import { embeddedServerOptions } from '../../temporal/embedded.js';
import { ensureRuntimeDir } from '../../loader/runtime-dir.js';

/** How long `run` waits for a worker it started (it may have to start the dev server first). */
const READY_TIMEOUT_MS = 60_000;

/** The worker could not be started or did not come up. */
export class CheckoutWorkerError extends CliError {
  override readonly name = 'CheckoutWorkerError';
  constructor(root: string, why: string, logFile: string) {
    super(
      `the worker for ${root} did not start: ${why}`,
      `see its log: ${logFile}; or run it in the foreground to see why: ll-loop worker`,
      EXIT.infrastructure,
    );
  }
}

/**
 * A newer ll-loop's worker serves the checkout: this (older) build does not replace it, since
 * the newer one may serve runs this build cannot interpret, and a newer command would only
 * replace it back.
 */
export class NewerWorkerServesError extends CliError {
  override readonly name = 'NewerWorkerServesError';
  constructor(root: string, worker: { pid: number; version: string; build_id: string }) {
    super(
      `ll-loop ${worker.version} (worker pid ${worker.pid}, build ${worker.build_id}) serves ${root}; this ll-loop is ${buildInfo().version} (build ${buildInfo().build_id}), older, and an older build never replaces a newer worker`,
      `run the newer ll-loop (upgrade this one, or call the one that started the worker: see ll-loop worker status); to go back to this version on purpose, stop that worker first: ll-loop worker stop`,
      EXIT.usage,
    );
  }
}

/** The checkout a command in `cwd` works in: the nearest `.loops/` or git root, else `cwd` itself. */
export function checkoutRootOf(cwd: string): string {
  return findCheckoutRoot(cwd) ?? cwd;
}

/**
 * The worker coming up for the checkout: the claim's owner, else the one a command has just
 * spawned (its note: it has not claimed yet), so that no second one is spawned meanwhile.
 */
function startingWorker(root: string): StartingWorker | undefined {
  return liveClaimOwner(root) ?? liveSpawnNote(root);
}

/** Whether `record` is a worker this command can use (same build, same server). */
function current(record: WorkerRecord | undefined, address: string | undefined): record is WorkerRecord {
  return record !== undefined && record.code_id === codeId() && (address === undefined || record.address === address);
}

/**
 * The memory settings of an on-demand checkout worker, which mostly waits (docs/decisions.md,
 * "An idle checkout worker's memory" and "Workflows on the worker's main thread"):
 * - V8's young generation capped at 2 MB per semi-space (the default grows to 16 MB, and an idle
 *   worker keeps what it grew to committed);
 * - code not run for two full collections dropped, bytecode and baseline code alike (V8: five,
 *   and baseline code kept), so what ran once (loading modules, starting up) does not stay
 *   compiled; what runs again is compiled again;
 * - glibc's malloc limited to two arenas (the SDK's native threads otherwise each keep one), with
 *   blocks from 64 KB mapped on their own and the heap's free top returned from 128 KB (by default
 *   both thresholds grow with what was once freed, so what a busy spell freed stays resident).
 * Measured, idle after runs: 147–153 MB with 4 MB and the defaults, 112–116 MB with these
 * (transitions and 1,000 concurrent loops: the same speed). `LL_WORKER_NODE_FLAGS` replaces the
 * Node flags (empty: none); malloc settings already in the environment are kept.
 */
const WORKER_NODE_FLAGS = ['--max-semi-space-size=2', '--bytecode-old-age=2', '--flush-baseline-code'];
const WORKER_MALLOC_ENV = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '65536',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

export function workerNodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const given = env.LL_WORKER_NODE_FLAGS;
  return given === undefined ? WORKER_NODE_FLAGS : given.split(/\s+/).filter(Boolean);
}

/** The environment an on-demand worker starts with: `env` over the malloc settings above. */
export function workerEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...WORKER_MALLOC_ENV, ...env, LL_WORKER_STARTED_BY: 'on-demand' };
}

/** Spawn `ll-loop worker` detached (own session: a closed terminal does not reach it). */
export function spawnCheckoutWorker(cwd: string, root: string, env: NodeJS.ProcessEnv = process.env): number {
  ensureRuntimeDir(workerDir(root));
  const fd = openSync(workerLogPath(root), 'a');
  try {
    const child = spawn(process.execPath, [...workerNodeFlags(env), LL_LOOP_BIN, 'worker'], {
      cwd,
      env: workerEnv(env),
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    child.on('error', () => undefined);
    if (child.pid === undefined)
      throw new CheckoutWorkerError(root, `${process.execPath} could not be spawned`, workerLogPath(root));
    child.unref();
    writeSpawnNote(root, { pid: child.pid, build_id: buildInfo().build_id, code_id: codeId(), ...thisBuild() });
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/**
 * Make sure a worker of this code serves the checkout of `cwd` and return its record, waiting
 * for one it had to start. `address`: the Temporal server the command uses.
 */
export async function ensureCheckoutWorker(cwd: string, address?: string): Promise<WorkerRecord> {
  const root = checkoutRootOf(cwd);
  const running = liveWorkerRecord(root);
  if (current(running, address)) return running;
  if (running && isNewerBuild(running)) throw new NewerWorkerServesError(root, running);
  // A worker still starting (claimed, not yet polling) is waited for, not duplicated.
  const starting = startingWorker(root);
  if (starting && isNewerBuild(ownerBuild(starting)))
    throw new NewerWorkerServesError(root, { ...starting, version: ownerBuild(starting).version });
  const pid = starting && starting.code_id === codeId() ? starting.pid : spawnCheckoutWorker(cwd, root);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const record = liveWorkerRecord(root);
    if (current(record, address)) return record;
    if (!pidAlive(pid) && !startingWorker(root)) {
      throw new CheckoutWorkerError(root, `it exited: ${lastLines(workerLogPath(root))}`, workerLogPath(root));
    }
    if (Date.now() > deadline)
      throw new CheckoutWorkerError(root, `not polling after ${READY_TIMEOUT_MS / 1000} s`, workerLogPath(root));
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The checkout's worker for a run about to start on the checkout's queue. When none of another
 * build polls that queue, the run starts alongside it (the time to the first action counts): no
 * one else can take the run's first workflow task. When a worker of another build (or server)
 * still serves the checkout, the run starts only once this build's worker has replaced it: the
 * old one would take the first task and run it with its own workflow bundle, and the rules of
 * this release it does not know would make the run's next task, replayed by the new worker,
 * nondeterministic. Resolves with the worker's readiness (a promise the caller may await later).
 */
export async function checkoutWorkerForStart(cwd: string, address: string): Promise<{ ready: Promise<WorkerRecord> }> {
  const root = checkoutRootOf(cwd);
  const running = liveWorkerRecord(root);
  const starting = startingWorker(root);
  const replacing =
    (running !== undefined && !current(running, address)) || (starting !== undefined && starting.code_id !== codeId());
  const ready = ensureCheckoutWorker(cwd, address);
  ready.catch(() => undefined);
  if (replacing) await ready;
  return { ready };
}

/**
 * For every command: when a worker has served this checkout before and none of this build does
 * now (it was killed, the machine rebooted, ll-loop was upgraded), start one without waiting, so
 * the checkout's open runs carry on by themselves. Costs a few file reads; never throws.
 */
export function reviveCheckoutWorker(cwd: string): void {
  try {
    const root = findCheckoutRoot(cwd);
    if (!root || !existsSync(workerDir(root))) return;
    const running = liveWorkerRecord(root);
    if (current(running, undefined)) {
      reviveEmbeddedServer(cwd, running);
      return;
    }
    // A newer build's worker serves the checkout: reviving means keeping it.
    if (running && isNewerBuild(running)) return;
    const starting = startingWorker(root);
    if (starting && (starting.code_id === codeId() || isNewerBuild(ownerBuild(starting)))) return;
    spawnCheckoutWorker(cwd, root);
  } catch {
    // Reviving is a courtesy of every command; the command itself must not fail for it.
  }
}

/**
 * When the worker that serves the checkout polls this project's embedded server and that server
 * died without `ll-loop server stop` (its pid file names a dead process), start it again in the
 * background (`ll-loop server start`, detached: the command does not wait, the start lock keeps it
 * to one start however many commands and workers try at once). The worker restarts it too, within
 * seconds; this covers a worker that cannot (busy, or of a build that does not watch). A worker
 * that is gone needs nothing here: the worker started in its place starts the server first.
 */
function reviveEmbeddedServer(cwd: string, worker: WorkerRecord, env: NodeJS.ProcessEnv = process.env): void {
  if (env.TEMPORAL_ADDRESS?.trim()) return; // an external server (temporal/connection.ts)
  const { dataDir, port } = embeddedServerOptions(cwd, env);
  if (worker.address !== `127.0.0.1:${port}` || !diedWithoutStop(dataDir)) return;
  const child = spawn(process.execPath, [LL_LOOP_BIN, 'server', 'start'], {
    cwd,
    env,
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
}

function lastLines(file: string, n = 5): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join(' | ');
  } catch {
    return '(no log)';
  }
}

/**
 * Where a run's files are: the checkout (a directory holding `.loops/`, or a git work tree) on a
 * host, and the names derived from it that every process agrees on — the checkout's task queue,
 * its worker's files, its scope-lock domain. Pure functions of (host, absolute path) plus a walk
 * up the file system; no Temporal.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** This machine's host id: `LL_HOST_ID` (two workers on one machine standing for two hosts), else the hostname. */
export function hostId(env: NodeJS.ProcessEnv = process.env): string {
  const id = (env.LL_HOST_ID ?? '').trim() || hostname() || 'localhost';
  return id.replace(/[^A-Za-z0-9._-]+/g, '-');
}

/** A short stable hash for names (task queues, workflow ids) derived from longer keys. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** Prefix of every checkout queue: `ll-loop.checkout.<host>.<hash of the path>`. */
export const CHECKOUT_QUEUE_PREFIX = 'll-loop.checkout.';
/** Prefix of pool queues: `ll-loop.pool.<name>` (workflow tasks of pool runs). */
const POOL_QUEUE_PREFIX = 'll-loop.pool.';
/** Prefix of a pool worker's own host queue: `ll-loop.host.<pool>.<host>` (actions of portable runs it took). */
const HOST_QUEUE_PREFIX = 'll-loop.host.';

/** A checkout on a host: the unit one worker serves and one lock domain guards. */
export interface Checkout {
  /** The absolute path of the checkout's root. */
  root: string;
  host: string;
  /** The task queue its worker polls (workflow and activity tasks). */
  queue: string;
  /** The scope-lock domain of runs that work in this checkout. */
  lockDomain: string;
}

function checkoutQueue(host: string, root: string): string {
  return `${CHECKOUT_QUEUE_PREFIX}${host}.${shortHash(root)}`;
}

export function poolQueue(pool: string): string {
  return `${POOL_QUEUE_PREFIX}${pool}`;
}

export function hostQueue(pool: string, host: string): string {
  return `${HOST_QUEUE_PREFIX}${pool}.${host}`;
}

/**
 * The identity of the checkout at `root` on `host` that every run started in it carries (the
 * `LoopCheckout` search attribute): loop names are looked up among this checkout's runs only.
 */
export function checkoutKey(root: string, host: string = hostId()): string {
  return `${host}:${resolve(root)}`;
}

/** The checkout at `root` on `host`. */
export function checkoutAt(root: string, host: string = hostId()): Checkout {
  const abs = resolve(root);
  return { root: abs, host, queue: checkoutQueue(host, abs), lockDomain: `checkout:${host}:${abs}` };
}

/**
 * The checkout that holds `cwd`: the nearest ancestor with a `.loops/` directory, else the
 * nearest with `.git`, like git finds its repository. Undefined when neither exists.
 */
export function findCheckoutRoot(cwd: string): string | undefined {
  const start = resolve(cwd);
  for (const marker of ['.loops', '.git']) {
    for (let dir = start; ; dir = dirname(dir)) {
      if (existsSync(join(dir, marker))) return dir;
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

/** The checkout worker's own files: `.loops/.worker/` (pid record, log). */
export function workerDir(root: string): string {
  return join(root, '.loops', '.worker');
}

export function workerRecordPath(root: string): string {
  return join(workerDir(root), 'worker.json');
}

export function workerLogPath(root: string): string {
  return join(workerDir(root), 'worker.log');
}

/**
 * What a running checkout worker writes to `.loops/.worker/worker.json` once it polls, and
 * removes when it stops. Readers check `pid` is alive before trusting it.
 */
export interface WorkerRecord {
  pid: number;
  host: string;
  /** The ll-loop version and build (version + bundle hash) the worker runs. */
  version: string;
  build_id: string;
  /** When its build was made (build-info.ts builtAt()); orders builds of one version. */
  built_at?: string;
  /**
   * build-info.ts codeId(): a worker of another code id is replaced by the next command — unless
   * it is newer (build-info.ts isNewerBuild): an older build never replaces a newer worker.
   */
  code_id: string;
  /** The checkout it serves and the queue it polls. */
  root: string;
  queue: string;
  /** The Temporal server it polls (`host:port`) and namespace. */
  address: string;
  namespace: string;
  /** The worker identity Temporal shows (`<pid>@<host> ll-loop <version>`). */
  identity: string;
  started_at: string;
  /** How it was started: on demand by a command, or by the user service (`worker install`). */
  started_by: 'on-demand' | 'service' | 'foreground';
}

/** The identity a worker reports to Temporal (pollers, activity attempts, the Web UI). */
export function workerIdentity(pid: number, host: string, version: string): string {
  return `${pid}@${host} ll-loop ${version}`;
}

/** Parse a worker identity back into its parts (list --running shows them); undefined for foreign identities. */
export function parseWorkerIdentity(identity: string): { pid: number; host: string; version: string } | undefined {
  const m = /^(\d+)@(\S+) ll-loop (\S+)$/.exec(identity);
  return m ? { pid: Number(m[1]), host: m[2]!, version: m[3]! } : undefined;
}

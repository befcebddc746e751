/**
 * The checkout worker's queue of accepted starts (`ll-loop run --background`, handed over by the
 * bin's early start: runs/start/start-queue-runner.ts), on disk in `.loops/.worker/start-queue/`:
 *
 * - `queued/<id>.json`: a run the worker has accepted and told its command about, whose workflow
 *   may not exist yet. Written durably (the file synced, renamed into place, the directory synced)
 *   before the command hears its run id, so a worker killed afterwards leaves it for the next
 *   worker of the checkout, which starts it. Removed once the run's workflow exists.
 * - `failed/<id>.json`: a queued run whose start failed (its scopes busy, its id taken meanwhile,
 *   a payload the server refused): what `status <id>` and `list --failed` report. Kept for
 *   {@link FAILED_KEPT_MS}.
 *
 * The run's environment (secrets included) is never here: it is in the run's environment file
 * (host/run-env.ts), written when the start is accepted and removed when it fails.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { LoopDefinition } from '../fsm/schema.js';
import { ensureRuntimeDir } from '../loader/runtime-dir.js';
import { workerDir } from './checkout.js';

/** A start the worker accepted: the loop as loaded, and what the start needs besides the environment. */
export interface QueuedStart {
  instance_id: string;
  /** When it was accepted (ISO): the order of the queue, and the mark the started run carries in its memo. */
  queued_at: string;
  definition: LoopDefinition;
  file: string;
  cwd: string;
  data_context: string[];
  lock: { none: boolean; wait: boolean; queue_timeout_s?: number };
}

/** A queued run that never started, and why (as the command would have reported it). */
export interface FailedStart {
  instance_id: string;
  loop: string;
  cwd: string;
  queued_at: string;
  failed_at: string;
  message: string;
  fix?: string;
  exit_code: number;
}

/** How long a failed start stays listed. */
const FAILED_KEPT_MS = 7 * 24 * 3600_000;

export function startQueueDir(root: string): string {
  return join(workerDir(root), 'start-queue');
}

const queuedDir = (root: string) => join(startQueueDir(root), 'queued');
const failedDir = (root: string) => join(startQueueDir(root), 'failed');
const fileName = (id: string) => `${encodeURIComponent(id)}.json`;

/** Write `text` to `dir/name` so that a reader, or a machine restarted at any point, sees all of it or nothing. */
function writeDurably(root: string, dir: string, name: string, text: string): void {
  // `.loops/.worker/` is git-ignored like every runtime directory.
  ensureRuntimeDir(workerDir(root));
  mkdirSync(dir, { recursive: true });
  const partial = join(dir, `.${name}.${process.pid}.partial`);
  const fd = openSync(partial, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, join(dir, name));
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

function readAll<T>(dir: string): T[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: T[] = [];
  for (const name of names) {
    if (!name.endsWith('.json') || name.startsWith('.')) continue;
    try {
      found.push(JSON.parse(readFileSync(join(dir, name), 'utf8')) as T);
    } catch {
      // Removed while listed, or not ours: skipped.
    }
  }
  return found;
}

function readOne<T>(dir: string, id: string): T | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, fileName(id)), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Accept a start: on disk for good before this returns. */
export function queueStart(root: string, start: QueuedStart): void {
  writeDurably(root, queuedDir(root), fileName(start.instance_id), JSON.stringify(start));
}

/** The accepted starts not yet made, oldest first. */
export function queuedStarts(root: string): QueuedStart[] {
  return readAll<QueuedStart>(queuedDir(root)).sort((a, b) => a.queued_at.localeCompare(b.queued_at));
}

function queuedStart(root: string, id: string): QueuedStart | undefined {
  return readOne<QueuedStart>(queuedDir(root), id);
}

/** The run's workflow exists (or its failure is recorded): off the queue. */
export function dropQueued(root: string, id: string): void {
  rmSync(join(queuedDir(root), fileName(id)), { force: true });
}

/** Whether `id` is queued or recorded as failed (an id the worker must not give again). */
export function startKnown(root: string, id: string): boolean {
  return queuedStart(root, id) !== undefined || failedStart(root, id) !== undefined;
}

/** Record a start that failed (and forget those older than FAILED_KEPT_MS). */
export function recordFailedStart(root: string, failed: FailedStart, now = Date.now()): void {
  writeDurably(root, failedDir(root), fileName(failed.instance_id), JSON.stringify(failed));
  for (const old of failedStarts(root))
    if (now - Date.parse(old.failed_at) > FAILED_KEPT_MS)
      rmSync(join(failedDir(root), fileName(old.instance_id)), { force: true });
}

export function failedStart(root: string, id: string): FailedStart | undefined {
  return readOne<FailedStart>(failedDir(root), id);
}

/** The failed starts, newest first. */
export function failedStarts(root: string): FailedStart[] {
  return readAll<FailedStart>(failedDir(root)).sort((a, b) => b.failed_at.localeCompare(a.failed_at));
}

/**
 * The note a command leaves when it spawns the checkout's worker (`.loops/.worker/spawned.json`):
 * the worker claims the checkout (checkout-claim.ts) only once it has loaded the Temporal SDK and
 * reached its server, a second or more after its spawn. A command in that window would otherwise
 * find neither a claim nor a record and spawn a second worker, which loads everything only to
 * find the checkout claimed and exit. The note stands for the claim until the claim exists: it
 * names the spawned pid and its build, and counts only while that process lives and for at most
 * {@link SPAWN_NOTE_TTL_MS} (a pid is reused in time).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive, type ClaimOwner } from './checkout-claim.js';
import { workerDir } from './checkout.js';

/** A worker that is starting: the claim's owner, or the pid a command spawned. */
export type StartingWorker = Omit<ClaimOwner, 'address'>;

interface SpawnNote extends StartingWorker {
  /** Epoch ms of the spawn. */
  spawned_at: number;
}

/** A worker that has not claimed within this long after its spawn is not waited for by its note. */
export const SPAWN_NOTE_TTL_MS = 60_000;

function notePath(root: string): string {
  return join(workerDir(root), 'spawned.json');
}

/** Record that `worker` was just spawned for the checkout at `root` (written whole, by rename). */
export function writeSpawnNote(root: string, worker: StartingWorker, now = Date.now()): void {
  const path = notePath(root);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ ...worker, spawned_at: now } satisfies SpawnNote));
  renameSync(tmp, path);
}

/** The spawned worker the note names, while it lives and the note is fresh. */
export function liveSpawnNote(root: string, now = Date.now()): StartingWorker | undefined {
  let note: SpawnNote;
  try {
    note = JSON.parse(readFileSync(notePath(root), 'utf8')) as SpawnNote;
  } catch {
    return undefined;
  }
  if (typeof note.spawned_at !== 'number' || now - note.spawned_at > SPAWN_NOTE_TTL_MS) return undefined;
  if (!pidAlive(note.pid)) return undefined;
  const { spawned_at: _at, ...worker } = note;
  return worker;
}

/** Remove the note when it names `pid` (the worker has claimed the checkout, or gives up). */
export function clearSpawnNote(root: string, pid: number): void {
  try {
    const note = JSON.parse(readFileSync(notePath(root), 'utf8')) as SpawnNote;
    if (note.pid === pid) rmSync(notePath(root), { force: true });
  } catch {
    // no note, or a half-gone one: nothing to clear
  }
}

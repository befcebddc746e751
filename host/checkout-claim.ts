/**
 * One worker per checkout: a worker claims the checkout by creating `.loops/.worker/claim/`
 * (mkdir is atomic) holding its pid and build, and publishes `worker.json` once it polls. A
 * claim whose pid is dead is stale and broken; a live claim of another build is handed over
 * (its owner is asked to drain with SIGTERM and gives the claim up as soon as it stops polling).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureRuntimeDir } from '../loader/runtime-dir.js';
import { workerDir, workerRecordPath, type WorkerRecord } from './checkout.js';

export interface ClaimOwner {
  pid: number;
  build_id: string;
  /** build-info.ts codeId(): the whole code's build. */
  code_id: string;
  /** The Temporal address the owner serves (a worker of another server is replaced too). */
  address: string;
  /** Its version and build time (build-info.ts BuildOrder); absent in claims of older releases. */
  version?: string;
  built_at?: string;
}

/** A claim owner's place in the order of builds (older releases' claims: the version in their build id). */
export function ownerBuild(owner: Omit<ClaimOwner, 'address'>): { version: string; built_at?: string } {
  return {
    version: owner.version ?? owner.build_id.split('+')[0] ?? '0.0.0',
    ...(owner.built_at === undefined ? {} : { built_at: owner.built_at }),
  };
}

export function claimDir(root: string): string {
  return join(workerDir(root), 'claim');
}

/**
 * Whether a process with this pid is alive (EPERM: it exists but is not ours). A zombie — killed,
 * not yet reaped by its parent — is dead: a worker killed a moment ago is one for a while.
 */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S …"; comm may hold spaces and parentheses, so read after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // Gone in between, on Linux; without /proc (macOS) kill(0) is all there is.
    return !existsSync('/proc/self');
  }
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The claim's owner, when the claim exists and its owner is alive. */
export function liveClaimOwner(root: string): ClaimOwner | undefined {
  const owner = readJson<ClaimOwner>(join(claimDir(root), 'owner.json'));
  return owner && pidAlive(owner.pid) ? owner : undefined;
}

export type ClaimAttempt = { claimed: true } | { claimed: false; owner: ClaimOwner };

/**
 * Try to claim the checkout for `me`. A stale claim (dead owner, or one that never wrote its
 * owner file and is older than a few seconds) is removed and the claim retried.
 */
export function tryClaim(root: string, me: ClaimOwner): ClaimAttempt {
  const dir = claimDir(root);
  ensureRuntimeDir(workerDir(root));
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      mkdirSync(dir);
      // Written to a temporary name and renamed: a reader never sees a half-written owner.
      const tmp = join(dir, `owner.${process.pid}.tmp`);
      writeFileSync(tmp, JSON.stringify(me));
      renameSync(tmp, join(dir, 'owner.json'));
      return { claimed: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = readJson<ClaimOwner>(join(dir, 'owner.json'));
    if (owner && pidAlive(owner.pid)) return { claimed: false, owner };
    if (!owner && !claimIsOld(dir))
      return { claimed: false, owner: { pid: 0, build_id: '?', code_id: '?', address: '?' } };
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error(`could not claim ${dir}: it keeps reappearing`);
}

/** A claim directory without an owner file, older than its owner needs to write one. */
function claimIsOld(dir: string): boolean {
  try {
    const { mtimeMs } = statSync(dir);
    return Date.now() - mtimeMs > 5000;
  } catch {
    return true;
  }
}

/** Give the claim up (only when it is ours) and withdraw the published record. */
export function releaseClaim(root: string, pid: number = process.pid): void {
  const owner = readJson<ClaimOwner>(join(claimDir(root), 'owner.json'));
  if (owner && owner.pid !== pid) return;
  const record = readJson<WorkerRecord>(workerRecordPath(root));
  if (!record || record.pid === pid) rmSync(workerRecordPath(root), { force: true });
  rmSync(claimDir(root), { recursive: true, force: true });
}

/** Publish the worker's record (it polls now). */
export function writeWorkerRecord(root: string, record: WorkerRecord): void {
  const path = workerRecordPath(root);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(tmp, path);
}

/** The published record, when its worker is alive. */
export function liveWorkerRecord(root: string): WorkerRecord | undefined {
  const record = readJson<WorkerRecord>(workerRecordPath(root));
  return record && pidAlive(record.pid) ? record : undefined;
}

/**
 * An inter-process lock made of a directory (mkdir is atomic): the Temporal CLI install and the
 * embedded server start take it, so two processes never do either at once. A lock whose owner is
 * dead is broken at once; a live owner's lock only after a long stale time.
 */
import { readFileSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Options for {@link withDirLock}. */
export interface DirLockOptions {
  /** A lock older than this whose owner cannot be shown alive is broken. */
  staleMs: number;
  /** Give up waiting after this long (default: 2 × staleMs). */
  timeoutMs?: number;
  log?: (msg: string) => void;
}

/** Waiting for an inter-process lock took longer than the holder could legitimately need. */
class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
  constructor(
    readonly lockDir: string,
    waitedMs: number,
  ) {
    super(
      `Timed out after ${Math.round(waitedMs / 1000)} s waiting for lock ${lockDir}. ` +
        `Fix: if no other ll-loop process is running, remove it (rm -r '${lockDir}') and try again.`,
    );
  }
}

/**
 * Run `fn` while holding an inter-process lock: the directory `lockDir`,
 * created with an exclusive `mkdir` (atomic on every local filesystem).
 *
 * The holder writes its pid into `lockDir/owner`. A waiter breaks the lock
 * when its owner process is dead, when it is older than `staleMs` and has no
 * readable owner, or when it is older than 10 × `staleMs` (pid reuse). Breaking is a crash-recovery path: two waiters
 * breaking the same stale lock at the same instant could both proceed, which
 * callers tolerate because their critical sections re-check before acting.
 *
 * Shared by the CLI installer and the dev-server starter.
 */
export async function withDirLock<T>(lockDir: string, opts: DirLockOptions, fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  const timeoutMs = opts.timeoutMs ?? opts.staleMs * 2;
  let announced = false;
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await isStaleLock(lockDir, opts.staleMs)) {
      opts.log?.(`breaking stale lock ${lockDir}`);
      await rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() - start > timeoutMs) throw new LockTimeoutError(lockDir, Date.now() - start);
    if (!announced) {
      opts.log?.(`waiting for another process holding ${lockDir}…`);
      announced = true;
    }
    await sleep(100 + Math.random() * 100);
  }
  try {
    await writeFile(join(lockDir, 'owner'), String(process.pid));
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

async function isStaleLock(lockDir: string, staleMs: number): Promise<boolean> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(lockDir)).mtimeMs;
  } catch {
    return false; // vanished: just retry mkdir
  }
  const age = Date.now() - mtimeMs;
  let owner: number;
  try {
    owner = Number(readFileSync(join(lockDir, 'owner'), 'utf8'));
  } catch {
    // No owner file yet (holder between mkdir and writeFile) or unreadable: judge by age.
    return age > staleMs;
  }
  if (!Number.isInteger(owner) || owner <= 0) return age > staleMs;
  // A live owner may legitimately hold the lock past staleMs (a slow install);
  // the 10× cap only guards against its pid having been reused after a crash.
  return !pidAlive(owner) || age > staleMs * 10;
}

/** Whether a process with this pid exists (EPERM means it exists but is not ours). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Promise-based sleep. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

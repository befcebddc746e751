/**
 * Stopping the embedded dev server started from a data directory: its own module, free of the
 * Temporal SDK, so `ll-loop server stop` loads none.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sleep } from './dir-lock.js';
import { looksLikeDevServer, processAlive } from './server-pid.js';

const POLL_MS = 100;

/**
 * Stop the server whose pid is in `<dataDir>/server.pid`: SIGTERM to its
 * process group, SIGKILL after `graceMs`, then remove the pid file.
 *
 * @returns true when a running server was stopped, false when none was running
 */
export async function stopDevServer(dataDir: string, opts: { graceMs?: number } = {}): Promise<boolean> {
  const pidPath = join(dataDir, 'server.pid');
  let pid: number;
  try {
    pid = Number((await readFile(pidPath, 'utf8')).trim());
  } catch {
    return false;
  }
  // Only signal a live process that is still our dev server: pids get reused.
  const running = Number.isInteger(pid) && pid > 0 && processAlive(pid) && looksLikeDevServer(pid);
  // The pid file goes first: a server whose pid file remains after it died is restarted by the
  // checkout's worker (diedWithoutStop), which must never take this stop for a crash.
  await rm(pidPath, { force: true });
  if (running) {
    killGroup(pid, 'SIGTERM');
    const deadline = Date.now() + (opts.graceMs ?? 5_000);
    while (processAlive(pid) && Date.now() < deadline) await sleep(POLL_MS);
    if (processAlive(pid)) {
      killGroup(pid, 'SIGKILL');
      const hardDeadline = Date.now() + 2_000;
      while (processAlive(pid) && Date.now() < hardDeadline) await sleep(POLL_MS);
    }
  }
  return running;
}

/** Signal the process group (the server is its leader), falling back to the pid alone. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

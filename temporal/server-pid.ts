/**
 * The embedded server's pid file (`<dataDir>/server.pid`) read against the process table, without
 * loading any Temporal SDK: every command checks it before it runs (runs/workers/checkout-worker.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pidAlive } from './dir-lock.js';

/**
 * Whether the embedded server of `dataDir` died without being stopped: `server.pid` is still there
 * (`ll-loop server stop` removes it) but names no live dev server. Such a server is restarted by
 * the checkout's worker and revived by every command; one stopped on purpose is not.
 */
export function diedWithoutStop(dataDir: string): boolean {
  let text: string;
  try {
    text = readFileSync(join(resolve(dataDir), 'server.pid'), 'utf8');
  } catch {
    return false;
  }
  const pid = Number(text.trim());
  return !(Number.isInteger(pid) && pid > 0 && processAlive(pid) && looksLikeDevServer(pid));
}

/**
 * Whether the embedded server of `dataDir` was (re)started within the last `ms`: its pid file is
 * written at each start. Its workers may not poll again yet (their SDK backs off up to 10 s).
 */
export function startedWithin(dataDir: string, ms: number, now = Date.now()): boolean {
  try {
    return now - statSync(join(resolve(dataDir), 'server.pid')).mtimeMs < ms;
  } catch {
    return false;
  }
}

/** Alive and not a zombie (a killed child of ours stays in the table until reaped). */
export function processAlive(pid: number): boolean {
  if (!pidAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): trust kill(0)
  }
}

/** Whether process `pid` runs `temporal server start-dev` (the pid in a pid file may have been reused). */
export function looksLikeDevServer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start-dev');
  } catch {
    return true; // no /proc (macOS): cannot tell, trust the pid file
  }
}

/** Test helpers about the machine: live processes, polling until something holds, free ports. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { processesOfTestRun } from '../../tools/test-run-sweep.mjs';

/**
 * Pids of live processes whose command line contains `marker` (its arguments joined by spaces,
 * so `sleep 4.2` matches both `bash -c "sleep 4.2"` and the `sleep` it runs); zombies excluded.
 */
export function livePids(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (cmd.includes(marker) && !/\) Z /.test(stat)) pids.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Pids of live processes (not this one) whose working directory is `dir` or below it. */
export function pidsUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if ((cwd === dir || cwd.startsWith(`${dir}/`)) && pidAlive(Number(name))) pids.push(Number(name));
    } catch {
      // Ended while we looked, or not ours to read.
    }
  }
  return pids;
}

/** How many live processes have `marker` in their command line (see {@link livePids}). */
export function liveProcesses(marker: string): number {
  return livePids(marker).length;
}

/** Whether process `pid` exists and is not a zombie. */
export function pidAlive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Signal `pid` when it is alive; a process that ends between the check and the signal is no
 * error (a teardown that threw there would skip stopping its server, which then outlives the run).
 */
export function killIfAlive(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (!pid || !pidAlive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Check every `intervalMs` until `check` holds; throws "timed out waiting for <what>" after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/**
 * Call `fn` every `intervalMs` until it returns a value (a rejection counts as "not yet");
 * throws "timed out waiting for <what>" after `timeoutMs`.
 */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/**
 * Call `fn` every `intervalMs` until `ok` accepts its value or `timeoutMs` has passed, and return
 * the last value either way, so the caller's assertion shows what it was.
 */
export async function settle<T>(
  fn: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 15_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (ok(value) || Date.now() > deadline) return value;
    await sleep(intervalMs);
  }
}

/** Whether a server can listen on 127.0.0.1:`port` right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The ports {@link freePort} has handed out in this process. */
const handedOut = new Set<number>();

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, chosen below Linux's ephemeral range
 * (32768–60999): a port the OS hands out for `listen(0)` is also one it may hand to the next
 * outgoing connection of a parallel test, and a server started a moment later then fails to bind.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    // Never the same port twice in one process: a test that asks for two (the server's and its
    // Web UI's) before starting anything on the first was once handed the same one for both.
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port between 20000 and 32000 on 127.0.0.1');
}

/**
 * The checkout workers (`ll-loop worker`, detached, started on demand) that this test run's
 * commands started: those whose environment carries this run's LL_TEST_RUN_ID. Teardown stops
 * them (and only them: other test runs on the machine have their own id).
 */
export function checkoutWorkersOf(testRunId: string): number[] {
  return processesOfTestRun(testRunId).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('ll-loop.js\0worker');
    } catch {
      return false; // gone
    }
  });
}

/**
 * The checkout's running worker as seen from outside: its record (`.loops/.worker/worker.json`),
 * whether the recorded pid is alive and really an ll-loop worker, and stopping it with SIGTERM
 * (it drains) and, if asked, SIGKILL.
 *
 * A record can outlive its process (SIGKILL, a crash, a reboot) and the pid can be reused, so a
 * pid is signalled only when it is alive on this host and its command line is an ll-loop worker's
 * (where /proc or ps can tell).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { hostId, workerRecordPath, type WorkerRecord } from '../../host/checkout.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';

/** The record at `root`, or undefined when there is none or it cannot be read as one. */
function readWorkerRecord(root: string): WorkerRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(workerRecordPath(root), 'utf8')) as Partial<WorkerRecord>;
    return typeof record.pid === 'number' && Number.isInteger(record.pid) && record.pid > 0
      ? (record as WorkerRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` exists and is not a zombie (EPERM: it exists, owned by someone else). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // No /proc (macOS): kill(0) is all we know.
  }
}

/** The command line of `pid` (arguments), from /proc, else `ps`; undefined when neither tells. */
function commandLineOf(pid: number): string[] | undefined {
  if (existsSync('/proc/self/cmdline')) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => a !== '');
    } catch {
      return undefined;
    }
  }
  try {
    const text = execFileSync('ps', ['-o', 'command=', '-p', String(pid)], {
      encoding: 'utf8',
      timeout: 5_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return text.trim() === '' ? undefined : text.trim().split(/\s+/);
  } catch {
    return undefined;
  }
}

/**
 * Whether `argv` is an ll-loop worker's: an argument `worker` and `ll-loop` somewhere (the bin is
 * `…/bin/ll-loop.js`, also through npx). Undefined argv (nothing could tell) counts as yes: the
 * record and a live pid are then all the evidence there is.
 */
export function isWorkerCommandLine(argv: string[] | undefined): boolean {
  if (!argv) return true;
  return argv.includes('worker') && argv.some((a) => a.includes('ll-loop'));
}

/** What a checkout's record says about its worker, checked against this machine. */
export type WorkerState =
  | { kind: 'none' }
  /** Recorded on another host (a shared file system): its pid means nothing here. */
  | { kind: 'other-host'; record: WorkerRecord }
  /** The pid is gone, or it is some other program now: the worker did not remove its record. */
  | { kind: 'stale'; record: WorkerRecord; why: string }
  | { kind: 'running'; record: WorkerRecord };

export function workerState(root: string, env: NodeJS.ProcessEnv = process.env): WorkerState {
  const record = readWorkerRecord(root);
  if (!record) return { kind: 'none' };
  if (record.host && record.host !== hostId(env)) return { kind: 'other-host', record };
  if (!pidAlive(record.pid)) return { kind: 'stale', record, why: `pid ${record.pid} is not alive` };
  const argv = commandLineOf(record.pid);
  if (!isWorkerCommandLine(argv))
    return {
      kind: 'stale',
      record,
      why: `pid ${record.pid} is another program now (${(argv ?? []).join(' ').slice(0, 120)})`,
    };
  return { kind: 'running', record };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Poll until `pid` is gone or `timeoutMs` has passed; whether it is gone. */
async function waitForExit(pid: number, timeoutMs: number, intervalMs = 200): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (pidAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(Math.min(intervalMs, Math.max(1, deadline - Date.now())));
  }
  return true;
}

export interface StopOutcome {
  pid: number;
  /** It exited after SIGTERM within the wait. */
  drained: boolean;
  /** It was SIGKILLed after the wait (`force`). */
  killed: boolean;
  /** Still alive (no `force`, or even SIGKILL did not end it within 5 s). */
  alive: boolean;
  waitedMs: number;
}

/**
 * SIGTERM `record.pid`, wait up to `waitMs` for it to exit (the worker drains: it stops polling
 * and lets its running actions finish), then, with `force`, SIGKILL it. A SIGKILLed worker cannot
 * remove its record, so it is removed here if it still names that pid.
 */
export async function stopWorker(
  root: string,
  record: WorkerRecord,
  opts: { waitMs: number; force: boolean },
): Promise<StopOutcome> {
  const started = Date.now();
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(record.pid, sig);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPERM')
        throw new CliError(
          `not allowed to signal worker pid ${record.pid} (another user's process)`,
          `stop it as the user who runs it`,
          EXIT.usage,
        );
      if (code !== 'ESRCH') throw err;
    }
  };
  signal('SIGTERM');
  if (await waitForExit(record.pid, opts.waitMs))
    return { pid: record.pid, drained: true, killed: false, alive: false, waitedMs: Date.now() - started };
  if (!opts.force)
    return { pid: record.pid, drained: false, killed: false, alive: true, waitedMs: Date.now() - started };
  signal('SIGKILL');
  const gone = await waitForExit(record.pid, 5_000);
  // SIGKILL cannot be caught: whether or not its exit has shown yet (a slow machine, a parent
  // that has not reaped it), the process writes nothing more, so its record is stale now.
  if (readWorkerRecord(root)?.pid === record.pid) rmSync(workerRecordPath(root), { force: true });
  return { pid: record.pid, drained: false, killed: gone, alive: !gone, waitedMs: Date.now() - started };
}

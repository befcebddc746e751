import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { statSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import type { ActionResult } from '../fsm/types.js';
import { trackGroup, untrackGroup } from './group-reaper.js';
import { OutputCapture, type LiveView } from './output-buffer.js';
import { findExecutable, gatedSpawn, openGate } from './spawn-gate.js';

/** Default tail sizes kept in memory (and in Temporal history). */
export const STDOUT_TAIL_BYTES = 64 * 1024;
const STDERR_TAIL_BYTES = 16 * 1024;
/** Time between SIGTERM and SIGKILL of a process group. */
const KILL_GRACE_MS = 2000;
/** After the main process exited, how long background children may keep its pipes open. */
const LINGER_MS = 200;
/** After killing lingering children, how long to wait before giving up on the pipes. */
const DRAIN_AFTER_KILL_MS = 2500;

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  file: string;
  args: string[];
  cwd: string;
  /**
   * The process's whole environment: nothing of this process's own is added (a worker's
   * environment is that of whoever started it; an action gets its run's: activities/action-env.ts).
   */
  env: Record<string, string>;
  timeoutMs: number;
  /**
   * Killed, as at `timeoutMs`, once the process has printed nothing (stdout or stderr) for this
   * long; the result then has `timeout_kind: 'idle'`. Unset or 0: no idle limit.
   */
  idleTimeoutMs?: number;
  /** Aborting kills the process group; the result then has exit_code 130 and error 'cancelled'. */
  signal?: AbortSignal;
  onHeartbeat?: () => void;
  /** Default 5000. */
  heartbeatMs?: number;
  /** Where the full output goes when a tail is cut. Written only then. */
  logPath: string;
  /** Where the output is copied while the process runs (activities/live-output.ts); unset: nowhere. */
  livePath?: string;
  /** What the live copy shows of stdout (output-buffer.ts LiveView); unset: its bytes. */
  liveView?: LiveView;
  /** stdout tail size in bytes; default {@link STDOUT_TAIL_BYTES}. */
  tailBytes?: number;
  /** stderr tail size in bytes; default {@link STDERR_TAIL_BYTES}. */
  stderrTailBytes?: number;
  /**
   * Written to the process's stdin, which is then closed (a prompt: never in argv, where `ps`
   * shows it to every local user, and not bound by the argv size limit). Unset: stdin is /dev/null.
   */
  input?: string;
  /** Values masked in stdout and stderr before they are kept anywhere (secret-mask.ts). */
  secrets?: readonly Buffer[];
}

/** Why a process could not be started. */
export type SpawnFailureReason = 'cwd' | 'not_found' | 'other';

/** The process could not be started at all (no exit code exists). */
export class SpawnError extends Error {
  override readonly name = 'SpawnError';
  constructor(
    message: string,
    readonly reason: SpawnFailureReason,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * Runs `file args` in a new process group and reports its exit as an {@link ActionResult}.
 *
 * Invariants:
 * - a non-zero exit, a signal death, a timeout (124, `timed_out`, `timeout_kind` `wall` or `idle`:
 *   whichever of `timeoutMs` and `idleTimeoutMs` fired first) and an abort (130, `error:
 *   'cancelled'`) are results; only a failure to start throws ({@link SpawnError});
 * - on timeout/abort the WHOLE group gets SIGTERM, then SIGKILL after {@link KILL_GRACE_MS};
 * - once the main process exited, children still holding its pipes get {@link LINGER_MS}, then the
 *   group is killed, so a stray `cmd &` cannot hang the action;
 * - memory is bounded by the tails (see {@link OutputCapture}); output is kept verbatim, except
 *   that `secrets` are masked (secret-mask.ts) before any of it is kept.
 */
export async function runProcess(opts: RunProcessOptions): Promise<ActionResult> {
  const start = performance.now();
  const elapsed = (): number => Math.round(performance.now() - start);
  if (opts.signal?.aborted) return { output: '', stderr: '', exit_code: 130, duration_ms: 0, error: 'cancelled' };

  // Spawned behind the gate (spawn-gate.ts): the action starts only once its group is tracked.
  const gated = gatedSpawn(opts.file, opts.args, opts.env);
  if (gated.file !== opts.file) {
    // Behind `sh` a missing program would be sh's 127, not a failed start: looked up first.
    const missing = findExecutable(opts.file, opts.cwd, opts.env.PATH);
    if (missing !== undefined) throw spawnFailure(opts, missing);
  }
  const child = startGated(gated, opts);
  const pid = child.pid;
  if (pid === undefined) throw await spawnError(child, opts);
  // Errors of a started child (a failed kill) and of its pipes end in its exit and end-of-file.
  child.on('error', () => undefined);
  // Guarded until runProcess returns, stragglers included (group-reaper.ts).
  trackGroup(pid);
  if (opts.input !== undefined) {
    const stdin = child.stdin as Writable;
    // A program that exits without reading all of it closes the pipe: EPIPE is no fault of ours.
    stdin.on('error', () => undefined);
    stdin.end(opts.input);
  }
  openGate(child.stdio[3] as unknown as Writable);

  const stdout = child.stdout as Readable;
  const stderr = child.stderr as Readable;
  const capture = new OutputCapture({
    logPath: opts.logPath,
    ...(opts.livePath === undefined ? {} : { livePath: opts.livePath }),
    ...(opts.liveView === undefined ? {} : { liveView: opts.liveView }),
    stdoutTailBytes: opts.tailBytes ?? STDOUT_TAIL_BYTES,
    stderrTailBytes: opts.stderrTailBytes ?? STDERR_TAIL_BYTES,
    ...(opts.secrets ? { secrets: opts.secrets } : {}),
    pause: () => {
      stdout.pause();
      stderr.pause();
    },
    resume: () => {
      stdout.resume();
      stderr.resume();
    },
  });
  stdout.on('error', () => undefined);
  stderr.on('error', () => undefined);
  // Any output, on either stream, restarts the idle limit (armed below).
  const idle = idleWatch(opts.idleTimeoutMs, () => terminate('idle'));
  stdout.on('data', (c: Buffer) => {
    idle.touch();
    capture.push('stdout', c);
  });
  stderr.on('data', (c: Buffer) => {
    idle.touch();
    capture.push('stderr', c);
  });
  const pipesDone = Promise.all([streamDone(stdout), streamDone(stderr)]);
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('exit', (code, sig) => resolve([code, sig]));
  });

  let ended: 'timeout' | 'idle' | 'cancel' | undefined;
  let escalation: NodeJS.Timeout | undefined;
  const terminate = (why: 'timeout' | 'idle' | 'cancel'): void => {
    if (ended !== undefined) return;
    ended = why;
    idle.stop();
    escalation = killGroup(pid);
  };
  idle.touch();
  const timer = setTimeout(() => terminate('timeout'), Math.max(0, opts.timeoutMs));
  const onAbort = (): void => terminate('cancel');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const heartbeat = opts.onHeartbeat;
  const beat =
    heartbeat === undefined
      ? undefined
      : setInterval(() => {
          try {
            heartbeat();
          } catch {
            // A failing heartbeat must not kill the action; Temporal reports missed heartbeats itself.
          }
        }, opts.heartbeatMs ?? 5000);

  let code: number | null;
  let sig: NodeJS.Signals | null;
  try {
    try {
      [code, sig] = await exited;
    } finally {
      clearTimeout(timer);
      idle.stop();
      if (beat !== undefined) clearInterval(beat);
      opts.signal?.removeEventListener('abort', onAbort);
    }

    if (!(await settlesWithin(pipesDone, LINGER_MS))) {
      // Background children still hold the pipes: end them (the main process is gone already).
      escalation ??= killGroup(pid);
      if (!(await settlesWithin(pipesDone, DRAIN_AFTER_KILL_MS))) {
        // Holders escaped the group (setsid): stop listening rather than hang.
        stdout.destroy();
        stderr.destroy();
      }
    }
  } finally {
    untrackGroup(pid);
  }
  if (escalation !== undefined && !groupAlive(pid)) clearTimeout(escalation);

  const captured = await capture.finish();
  const result: ActionResult = { ...captured, exit_code: 0, duration_ms: elapsed() };
  if (ended === 'timeout' || ended === 'idle') {
    result.exit_code = 124;
    result.timed_out = true;
    result.timeout_kind = ended === 'idle' ? 'idle' : 'wall';
  } else if (ended === 'cancel') {
    result.exit_code = 130;
    result.error = 'cancelled';
  } else if (sig !== null) {
    result.exit_code = 128 + (osConstants.signals[sig] ?? 0);
    result.signal = sig;
  } else {
    result.exit_code = code ?? 1;
  }
  return result;
}

/** A timer that fires `onIdle` once `ms` pass without a `touch()`; inert without `ms`. */
function idleWatch(ms: number | undefined, onIdle: () => void): { touch: () => void; stop: () => void } {
  if (ms === undefined || ms <= 0) return { touch: () => undefined, stop: () => undefined };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  return {
    touch: () => {
      if (stopped) return;
      clearTimeout(timer);
      timer = setTimeout(onIdle, ms);
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** SIGTERM to the group now, SIGKILL after the grace; returns the escalation timer. */
function killGroup(pid: number): NodeJS.Timeout {
  signalGroup(pid, 'SIGTERM');
  const t = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  // Not keeping the worker alive for this: if the worker exits, the children lose their reader anyway.
  t.unref();
  return t;
}

function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves when the stream ended, closed or failed: all mean "no more data". */
function streamDone(s: Readable): Promise<void> {
  return new Promise((resolve) => {
    if (s.closed || s.destroyed) return resolve();
    s.once('end', resolve);
    s.once('close', resolve);
    s.once('error', () => resolve());
  });
}

/** True when `p` settled within `ms`. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Spawns the gate with Node's own `spawn` (no wrapper library: this is the hot path of every quick
 * action, and the spawner's memory is what each fork copies). The action's environment is
 * `opts.env` (with the gate's BASH_ENV); its own process group (`detached`); stdin a pipe only for
 * `input`; fd 3 the gate. A spawn that throws at once (arguments Node refuses) is returned as a
 * child that never started, as one whose spawn failed later is.
 */
function startGated(gated: ReturnType<typeof gatedSpawn>, opts: RunProcessOptions): ChildProcess {
  try {
    return spawn(gated.file, gated.args, {
      cwd: opts.cwd,
      env: gated.env,
      detached: true,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', 'pipe'],
    });
  } catch (e) {
    return notStarted(e as NodeJS.ErrnoException);
  }
}

/** A stand-in for a child whose spawn threw: no pid, and the error as its `error` event. */
function notStarted(err: NodeJS.ErrnoException): ChildProcess {
  const stub = { pid: undefined, stdio: [], once: (_: 'error', f: (e: Error) => void) => queueMicrotask(() => f(err)) };
  return stub as unknown as ChildProcess;
}

/** Builds the error for a process that never started, naming the likely cause. */
function spawnError(child: ChildProcess, opts: RunProcessOptions): Promise<SpawnError> {
  // The pipes made for it have no one at the other end: closed, so they hold nothing open.
  for (const s of child.stdio ?? []) s?.destroy();
  return new Promise((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) => resolve(spawnFailure(opts, e.code, e.message)));
  });
}

function spawnFailure(opts: RunProcessOptions, code: string | undefined, detail?: string): SpawnError {
  if (!isDirectory(opts.cwd)) {
    return new SpawnError(
      `cannot run ${opts.file}: working directory ${opts.cwd} does not exist or is not a directory`,
      'cwd',
      code,
    );
  }
  if (code === 'ENOENT') {
    return new SpawnError(`cannot run ${opts.file}: command not found on PATH`, 'not_found', code);
  }
  return new SpawnError(`cannot run ${opts.file}: ${detail ?? code ?? 'spawn failed'}`, 'other', code);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

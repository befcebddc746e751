/**
 * A running action's output as it is written, for whoever watches the run on the worker's host
 * (`ll-loop ui`, `ll-loop logs --follow`): `<run dir>/<step>-<state>.live.log`, stdout and stderr
 * together in the order they arrived, as a terminal would show them.
 *
 * Invariants:
 * - it holds only bytes already masked (the capture masks before anything is kept), so it holds
 *   nothing the action's result and log files do not; it is the user's alone (0600);
 * - it exists only while the action runs, and only once it has run {@link LIVE_DELAY_MS} (or printed
 *   more than {@link LIVE_EARLY_BYTES} before): what it printed until then is held and written
 *   first. {@link LiveOutputFile.close} removes it, and the run's directory when the file made it
 *   and it is empty again, so quick actions and runs of small outputs still leave nothing in the
 *   project. A reader that opened it keeps reading to its end after the removal (an open
 *   descriptor outlives the name), so nothing written is lost to a reader that was there;
 * - it is bounded: past {@link LIVE_OUTPUT_CAP} bytes it starts over from empty (a reader that
 *   sees it shrink reads it again from its start); the whole output is the capped log's business;
 * - a failing file never fails the action: it stops being written, and that is all.
 */
import { closeSync, existsSync, ftruncateSync, openSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureRuntimeDirOf } from '../loader/runtime-dir.js';

/** The live file starts over past this many bytes. */
const LIVE_OUTPUT_CAP = 4 * 1024 * 1024;
/** An action that ends sooner gets no live file (nobody could watch it run anyway). */
const LIVE_DELAY_MS = 250;
/** Output held before the file exists; past it, the file is made at once. */
const LIVE_EARLY_BYTES = 64 * 1024;

/** The suffix that marks a live output file (see {@link liveOutputPath}). */
export const LIVE_SUFFIX = '.live.log';

/** `…/<step>-<state>.log` → `…/<step>-<state>.live.log`. */
export function liveOutputPath(logPath: string): string {
  return logPath.endsWith('.log') ? `${logPath.slice(0, -'.log'.length)}${LIVE_SUFFIX}` : `${logPath}${LIVE_SUFFIX}`;
}

/** The live copy of one action's output, made at once (see {@link DelayedLiveOutput} for the delay). */
export class LiveOutputFile {
  private fd: number | undefined;
  private written = 0;
  /** The run's directory, when this file made it (removed again, if empty, at close). */
  private readonly madeDir: string | undefined;

  constructor(
    readonly path: string,
    private readonly cap = LIVE_OUTPUT_CAP,
  ) {
    const dir = dirname(path);
    this.madeDir = existsSync(dir) ? undefined : dir;
    try {
      ensureRuntimeDirOf(path);
      this.fd = openSync(path, 'w', 0o600);
    } catch {
      this.fd = undefined;
    }
  }

  /** Appends `chunk` (synchronously: the order of the two streams' chunks is kept). */
  write(chunk: Buffer): void {
    if (this.fd === undefined || chunk.length === 0) return;
    try {
      if (this.written + chunk.length > this.cap) {
        ftruncateSync(this.fd, 0);
        this.written = 0;
        if (chunk.length > this.cap) chunk = chunk.subarray(chunk.length - this.cap);
      }
      writeSync(this.fd, chunk, 0, chunk.length, this.written);
      this.written += chunk.length;
    } catch {
      this.close();
    }
  }

  /** Closes and removes the file. Idempotent; never throws. */
  close(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    try {
      unlinkSync(this.path);
    } catch {
      // removed already (the run's directory was pruned)
    }
    if (this.madeDir === undefined) return;
    try {
      rmdirSync(this.madeDir);
    } catch {
      // not empty (the action's log files, or another's): kept
    }
  }
}

/**
 * A {@link LiveOutputFile} made only once the action has run {@link LIVE_DELAY_MS} or printed more
 * than {@link LIVE_EARLY_BYTES}; until then its output is held (in order) and written first.
 */
export class DelayedLiveOutput {
  private file: LiveOutputFile | undefined;
  private early: Buffer[] = [];
  private earlyBytes = 0;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly path: string,
    delayMs = LIVE_DELAY_MS,
  ) {
    this.timer = setTimeout(() => this.open(), delayMs);
    this.timer.unref();
  }

  write(chunk: Buffer): void {
    if (this.closed || chunk.length === 0) return;
    if (this.file) {
      this.file.write(chunk);
      return;
    }
    this.early.push(chunk);
    this.earlyBytes += chunk.length;
    if (this.earlyBytes > LIVE_EARLY_BYTES) this.open();
  }

  /** Removes the file (if it was made); never makes it. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.early = [];
    this.file?.close();
  }

  private open(): void {
    if (this.closed || this.file) return;
    clearTimeout(this.timer);
    this.file = new LiveOutputFile(this.path);
    for (const chunk of this.early) this.file.write(chunk);
    this.early = [];
  }
}

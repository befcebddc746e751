/**
 * A running action's output as it is written, for whoever watches the run on the worker's host
 * (`ll-loop ui`, `ll-loop logs --follow`): `<run dir>/<step>-<state>.live.log`, stdout and stderr
 * together in the order they arrived, as a terminal would show them.
 *
 * Invariants:
 * - it holds only bytes already masked (the capture masks before anything is kept), so it holds
 *   nothing the action's result and log files do not; it is the user's alone (0600);
 * - it exists only while the action runs: {@link LiveOutputFile.close} removes it, so a run of
 *   small outputs still leaves nothing in the project. A reader that opened it keeps reading to
 *   its end after the removal (an open descriptor outlives the name), so nothing written is lost
 *   to a reader that was there;
 * - it is bounded: past {@link LIVE_OUTPUT_CAP} bytes it starts over from empty (a reader that
 *   sees it shrink reads it again from its start); the whole output is the capped log's business;
 * - a failing file never fails the action: it stops being written, and that is all.
 */
import { closeSync, ftruncateSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { ensureRuntimeDirOf } from '../loader/runtime-dir.js';

/** The live file starts over past this many bytes. */
export const LIVE_OUTPUT_CAP = 4 * 1024 * 1024;

/** The suffix that marks a live output file (see {@link liveOutputPath}). */
export const LIVE_SUFFIX = '.live.log';

/** `…/<step>-<state>.log` → `…/<step>-<state>.live.log`. */
export function liveOutputPath(logPath: string): string {
  return logPath.endsWith('.log') ? `${logPath.slice(0, -'.log'.length)}${LIVE_SUFFIX}` : `${logPath}${LIVE_SUFFIX}`;
}

/** The live copy of one action's output (see the module's invariants). */
export class LiveOutputFile {
  private fd: number | undefined;
  private written = 0;

  constructor(
    readonly path: string,
    private readonly cap = LIVE_OUTPUT_CAP,
  ) {
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
  }
}

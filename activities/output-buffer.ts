import { dirname } from 'node:path';
import { CappedLogFile, LOG_KEEP_ACTIONS, pruneActionLogs } from './capped-log.js';
import { StreamMasker } from './secret-mask.js';
import { ensureRuntimeDirOf } from '../loader/runtime-dir.js';
import { DelayedLiveOutput } from './live-output.js';
import { TailBuffer } from './tail-buffer.js';

/** What {@link OutputCapture.finish} reports, in {@link ActionResult} field names. */
export interface CapturedOutput {
  output: string;
  stderr: string;
  truncated?: true;
  /** stdout's file (capped: activities/capped-log.ts), when a tail was cut. */
  log_file?: string;
  /** stderr's file beside it. */
  stderr_file?: string;
}

/** Options of {@link OutputCapture}. */
export interface OutputCaptureOptions {
  /** stdout's file; stderr's is the same path with `.log` replaced by `.stderr.log`. */
  logPath: string;
  stdoutTailBytes: number;
  stderrTailBytes: number;
  /** Stop reading the child's pipes (log file backpressure): the child then blocks on write. */
  pause: () => void;
  /** Resume reading after the log file drained. */
  resume: () => void;
  /**
   * Values masked (`***`) before anything is kept, tails and log file alike (secret-mask.ts:
   * `maskableSecrets`). Default: none.
   */
  secrets?: readonly Buffer[];
  /**
   * Where the output is copied as it arrives while the action runs (activities/live-output.ts),
   * removed at {@link OutputCapture.finish}. Unset: no live copy.
   */
  livePath?: string;
  /** What the live copy shows of stdout, when not its bytes (a prompt action's: stream-json-live.ts). */
  liveView?: LiveView;
}

/** Turns stdout's (masked) bytes into what the live copy shows, chunk by chunk. */
export interface LiveView {
  stdout(chunk: Buffer): Buffer;
  /** What is left to show once stdout ended. */
  end(): Buffer;
}

/** The stderr file that goes with stdout's `logPath`. */
function stderrLogPath(logPath: string): string {
  return logPath.endsWith('.log') ? `${logPath.slice(0, -'.log'.length)}.stderr.log` : `${logPath}.stderr`;
}

/**
 * Captures a child's stdout and stderr: tails in memory, and, only once a tail would lose bytes,
 * each stream in a file of its own (`logPath` and {@link stderrLogPath}), from its first byte,
 * capped to a head and a tail with a note of what was cut between them (capped-log.ts).
 *
 * Invariants: until the spill, every byte is still held by the tails (the spill check runs before a
 * tail can drop anything), so each file starts at its stream's first byte; after the spill, memory
 * stays bounded: the pipes are paused while a file drains its head, and its tail is bounded. Small
 * outputs never touch the file system. With `secrets`, every chunk passes a masking stage first, so
 * no secret reaches a tail or a file (the bytes kept and written are the masked ones).
 */
export class OutputCapture {
  private readonly out: TailBuffer;
  private readonly err: TailBuffer;
  private logs: { stdout: CappedLogFile; stderr: CappedLogFile } | undefined;
  private logError: Error | undefined;
  /** Files waiting for a drain; the pipes are paused while there is any. */
  private waiting = 0;
  private readonly maskers: { stdout: StreamMasker; stderr: StreamMasker } | undefined;
  private readonly live: DelayedLiveOutput | undefined;

  constructor(private readonly opts: OutputCaptureOptions) {
    this.live = opts.livePath === undefined ? undefined : new DelayedLiveOutput(opts.livePath);
    this.out = new TailBuffer(opts.stdoutTailBytes);
    this.err = new TailBuffer(opts.stderrTailBytes);
    const secrets = opts.secrets ?? [];
    this.maskers =
      secrets.length === 0 ? undefined : { stdout: new StreamMasker(secrets), stderr: new StreamMasker(secrets) };
  }

  /** Records one chunk of `stream` (masked first, when there are secrets). */
  push(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    this.record(stream, this.maskers ? this.maskers[stream].push(chunk) : chunk);
  }

  private record(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const tail = stream === 'stdout' ? this.out : this.err;
    if (this.logs === undefined && this.logError === undefined && tail.totalBytes + chunk.length > tail.capacity)
      this.spill();
    tail.push(chunk);
    this.logs?.[stream].write(chunk);
    const view = this.opts.liveView;
    this.live?.write(view !== undefined && stream === 'stdout' ? view.stdout(chunk) : chunk);
  }

  /** Closes the log files (if any) and returns the tails. Call once, after both streams ended. */
  async finish(): Promise<CapturedOutput> {
    if (this.maskers) {
      // What the maskers held back in case a secret continued (both streams ended: it did not).
      this.record('stdout', this.maskers.stdout.end());
      this.record('stderr', this.maskers.stderr.end());
    }
    if (this.opts.liveView) this.live?.write(this.opts.liveView.end());
    this.live?.close();
    const logs = this.logs;
    if (logs !== undefined) {
      await Promise.all([logs.stdout.finish(), logs.stderr.finish()]);
      this.logError ??= logs.stdout.error ?? logs.stderr.error;
    }
    let stderr = this.err.text();
    if (this.logError !== undefined) {
      stderr += `\n[ll-loop] could not write the full output to ${this.opts.logPath}: ${this.logError.message}\n`;
    }
    const truncated = this.out.truncated || this.err.truncated;
    const result: CapturedOutput = { output: this.out.text(), stderr };
    if (truncated) {
      result.truncated = true;
      if (this.logError === undefined && logs !== undefined) {
        result.log_file = logs.stdout.path;
        result.stderr_file = logs.stderr.path;
      }
    }
    return result;
  }

  /** Opens both files and writes what the tails hold so far: everything, until now. */
  private spill(): void {
    try {
      const wait = (on: boolean) => {
        this.waiting += on ? 1 : -1;
        if (on && this.waiting === 1) this.opts.pause();
        if (!on && this.waiting === 0) this.opts.resume();
      };
      ensureRuntimeDirOf(this.opts.logPath);
      pruneActionLogs(dirname(this.opts.logPath), LOG_KEEP_ACTIONS - 1);
      const stdout = new CappedLogFile(this.opts.logPath, wait);
      let stderr: CappedLogFile;
      try {
        stderr = new CappedLogFile(stderrLogPath(this.opts.logPath), wait);
      } catch (e) {
        void stdout.finish(); // closes the file it opened
        throw e;
      }
      const logs = { stdout, stderr };
      this.logs = logs;
      if (this.out.totalBytes > 0) logs.stdout.write(this.out.bytes());
      if (this.err.totalBytes > 0) logs.stderr.write(this.err.bytes());
    } catch (e) {
      this.logError = e instanceof Error ? e : new Error(String(e));
      this.logs = undefined;
    }
  }
}

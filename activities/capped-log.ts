import { createWriteStream, mkdirSync, openSync, readdirSync, rmSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { TailBuffer } from './tail-buffer.js';
import { LIVE_SUFFIX } from './live-output.js';

/** Bytes of a stream's start kept in its log file. */
export const LOG_HEAD_BYTES = 1024 * 1024;
/** Bytes of a stream's end kept in its log file (held in memory until the action ends). */
export const LOG_TAIL_BYTES = 1024 * 1024;
/** A run's directory keeps the output files of this many actions (steps); older ones are removed. */
export const LOG_KEEP_ACTIONS = 50;

/** The line that replaces what a capped log cut, between its head and its tail. */
export function cutNote(cut: number, total: number, head: number, tail: number): string {
  return `\n[ll-loop: ${cut} bytes cut here; this log keeps the first ${head} and the last ${tail} of ${total} bytes]\n`;
}

/**
 * One stream's output file, capped: the first `headBytes` bytes are written as they come, the last
 * `tailBytes` are kept in memory and written at {@link finish}, after a line saying how many bytes
 * were cut between them. So an action printing 100 MB leaves at most head + tail + one line on
 * disk, and memory stays at most `tailBytes` (writes past the head never wait for the disk).
 *
 * `onBackpressure(true)` asks the caller to stop reading the child while the file drains (during
 * the head), `onBackpressure(false)` to go on. A failing file never fails the action: {@link error}
 * says why, and the caller reports it.
 */
export class CappedLogFile {
  private readonly stream: WriteStream;
  private readonly tail: TailBuffer;
  private written = 0;
  private draining = false;
  error: Error | undefined;

  constructor(
    readonly path: string,
    private readonly onBackpressure: (wait: boolean) => void,
    private readonly headBytes = LOG_HEAD_BYTES,
    tailBytes = LOG_TAIL_BYTES,
  ) {
    this.tail = new TailBuffer(tailBytes);
    mkdirSync(dirname(path), { recursive: true });
    // Opened now, not when the stream gets to it: the file must exist from here on, or the live
    // file's close at the action's end (live-output.ts) finds the run's directory empty, removes
    // it, and the stream's open fails. A file that cannot be opened throws here (the caller's
    // error), as one that fails later sets `error`.
    this.stream = createWriteStream(path, { fd: openSync(path, 'w') });
    this.stream.on('error', (e) => this.fail(e));
  }

  write(chunk: Buffer): void {
    if (this.error !== undefined) return;
    const room = this.headBytes - this.written;
    if (room > 0) {
      const head = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.written += head.length;
      if (!this.stream.write(head) && !this.draining) {
        this.draining = true;
        this.onBackpressure(true);
        this.stream.once('drain', () => this.drained());
      }
      if (head.length === chunk.length) return;
      chunk = chunk.subarray(room);
    }
    this.tail.push(chunk);
  }

  /** Writes the tail (after the cut note, when bytes were cut) and closes the file. */
  async finish(): Promise<void> {
    if (this.error === undefined && this.tail.totalBytes > 0) {
      const cut = this.tail.totalBytes - this.tail.bytes().length;
      if (cut > 0)
        this.stream.write(cutNote(cut, this.written + this.tail.totalBytes, this.headBytes, this.tail.capacity));
      this.stream.write(this.tail.bytes());
    }
    if (this.stream.closed || this.stream.destroyed) return;
    await new Promise<void>((resolve) => {
      this.stream.once('close', () => resolve());
      this.stream.end();
    });
  }

  private drained(): void {
    this.draining = false;
    this.onBackpressure(false);
  }

  private fail(e: Error): void {
    this.error ??= e;
    this.stream.destroy();
    if (this.draining) this.drained();
  }
}

/**
 * Removes the output files of all but the newest `keep` actions (by step, the number their names
 * start with) in a run's directory, so a long loop of noisy actions cannot fill the disk. Best effort.
 */
export function pruneActionLogs(dir: string, keep = LOG_KEEP_ACTIONS): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const stepOf = (name: string): number | undefined => {
    // A running action's live file is its own business (activities/live-output.ts).
    if (name.endsWith(LIVE_SUFFIX)) return undefined;
    const m = /^(\d+)-/.exec(name);
    return m ? Number(m[1]) : undefined;
  };
  const steps = [...new Set(names.map(stepOf).filter((s): s is number => s !== undefined))].sort((a, b) => b - a);
  const oldest = steps[keep - 1];
  if (oldest === undefined || steps.length <= keep) return;
  for (const name of names) {
    const step = stepOf(name);
    if (step !== undefined && step < oldest) rmSync(join(dir, name), { force: true });
  }
}

import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { StreamMasker } from './secret-mask.js';

/**
 * A byte-bounded tail of a byte stream: keeps the last `capacity` bytes seen, nothing more.
 *
 * Invariants:
 * - memory held is at most `capacity` bytes plus one chunk's slice bookkeeping (chunks are kept by
 *   reference until they fall out of the window, then dropped or sliced);
 * - `totalBytes` counts every byte ever pushed, so callers can tell whether anything was cut;
 * - `text()` never throws, whatever the bytes: invalid UTF-8 becomes U+FFFD (TextDecoder never
 *   yields lone surrogates), a multi-byte character cut at the window's start is dropped rather than
 *   shown as garbage, and NUL characters are removed (they break terminals, logs and some stores).
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private held = 0;
  private total = 0;

  /** @param capacity maximum number of bytes kept (>= 0). */
  constructor(readonly capacity: number) {
    if (!Number.isFinite(capacity) || capacity < 0) throw new RangeError(`invalid tail capacity ${capacity}`);
  }

  /** Bytes pushed since creation, including those no longer held. */
  get totalBytes(): number {
    return this.total;
  }

  /** True when some pushed bytes were dropped from the front. */
  get truncated(): boolean {
    return this.total > this.held;
  }

  /** Appends a chunk, dropping the oldest bytes beyond `capacity`. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (chunk.length === 0) return;
    if (chunk.length >= this.capacity) {
      // The chunk alone fills the window: copy its tail so the big chunk can be collected.
      this.chunks = this.capacity > 0 ? [Buffer.from(chunk.subarray(chunk.length - this.capacity))] : [];
      this.held = this.capacity;
      return;
    }
    this.chunks.push(chunk);
    this.held += chunk.length;
    let excess = this.held - this.capacity;
    while (excess > 0) {
      const first = this.chunks[0];
      if (first === undefined) break;
      if (first.length <= excess) {
        this.chunks.shift();
        this.held -= first.length;
        excess -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.held -= excess;
        excess = 0;
      }
    }
  }

  /** The held bytes as one Buffer. */
  bytes(): Buffer {
    return this.chunks.length === 1 && this.chunks[0] ? this.chunks[0] : Buffer.concat(this.chunks, this.held);
  }

  /** The held bytes decoded as UTF-8 (lossy, NUL-free); see the class invariants. */
  text(): string {
    let buf = this.bytes();
    if (this.truncated) buf = skipLeadingContinuationBytes(buf);
    return decodeUtf8Lossy(buf);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Decodes bytes as UTF-8, replacing invalid sequences with U+FFFD and removing NUL characters. */
export function decodeUtf8Lossy(buf: Uint8Array): string {
  const s = decoder.decode(buf);
  return s.includes('\0') ? s.replace(/\0/g, '') : s;
}

/** When a tail starts inside a multi-byte character, its 1–3 continuation bytes are noise: drop them. */
function skipLeadingContinuationBytes(buf: Buffer): Buffer {
  let i = 0;
  while (i < 3 && i < buf.length && ((buf[i] ?? 0) & 0xc0) === 0x80) i++;
  return i === 0 ? buf : buf.subarray(i);
}

/** What {@link OutputCapture.finish} reports, in {@link ActionResult} field names. */
export interface CapturedOutput {
  output: string;
  stderr: string;
  truncated?: true;
  log_file?: string;
}

/** Options of {@link OutputCapture}. */
export interface OutputCaptureOptions {
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
}

/**
 * Captures a child's stdout and stderr: tails in memory, and, only once a tail would lose bytes,
 * EVERYTHING (both streams, in arrival order, verbatim, from the first byte) in `logPath`.
 *
 * Invariants: until the spill, every byte is still held by the tails (the spill check runs before a
 * tail can drop anything), so the log file is complete; after the spill, memory stays bounded
 * because the child's pipes are paused whenever the file stream reports backpressure. Small
 * outputs never touch the file system. With `secrets`, every chunk passes a masking stage first, so
 * no secret reaches a tail or the file (the bytes kept and written are the masked ones).
 */
export class OutputCapture {
  private readonly out: TailBuffer;
  private readonly err: TailBuffer;
  /** Arrival-ordered references to the chunks held before the spill (bounded by both tails). */
  private ordered: Buffer[] = [];
  private log: WriteStream | undefined;
  private logError: Error | undefined;
  private waitingDrain = false;
  private readonly maskers: { stdout: StreamMasker; stderr: StreamMasker } | undefined;

  constructor(private readonly opts: OutputCaptureOptions) {
    this.out = new TailBuffer(opts.stdoutTailBytes);
    this.err = new TailBuffer(opts.stderrTailBytes);
    const secrets = opts.secrets ?? [];
    this.maskers = secrets.length === 0 ? undefined : { stdout: new StreamMasker(secrets), stderr: new StreamMasker(secrets) };
  }

  /** Records one chunk of `stream` (masked first, when there are secrets). */
  push(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    this.record(stream, this.maskers ? this.maskers[stream].push(chunk) : chunk);
  }

  private record(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const tail = stream === 'stdout' ? this.out : this.err;
    if (this.log === undefined && this.logError === undefined) {
      if (tail.totalBytes + chunk.length > tail.capacity) this.spill();
      else this.ordered.push(chunk);
    }
    tail.push(chunk);
    if (this.log !== undefined) this.write(chunk);
  }

  /** Closes the log file (if any) and returns the tails. Call once, after both streams ended. */
  async finish(): Promise<CapturedOutput> {
    if (this.maskers) {
      // What the maskers held back in case a secret continued (both streams ended: it did not).
      this.record('stdout', this.maskers.stdout.end());
      this.record('stderr', this.maskers.stderr.end());
    }
    const log = this.log;
    if (log !== undefined && !log.closed) {
      await new Promise<void>((resolve) => {
        log.once('close', () => resolve());
        log.end();
      });
    }
    let stderr = this.err.text();
    if (this.logError !== undefined) {
      stderr += `\n[ll-loop] could not write the full output to ${this.opts.logPath}: ${this.logError.message}\n`;
    }
    const truncated = this.out.truncated || this.err.truncated;
    const result: CapturedOutput = { output: this.out.text(), stderr };
    if (truncated) {
      result.truncated = true;
      if (this.logError === undefined) result.log_file = this.opts.logPath;
    }
    return result;
  }

  /** Opens the log lazily and writes what was held so far, in arrival order. */
  private spill(): void {
    const held = this.ordered;
    this.ordered = [];
    try {
      mkdirSync(dirname(this.opts.logPath), { recursive: true });
      const log = createWriteStream(this.opts.logPath);
      log.on('error', (e) => this.onLogError(e));
      this.log = log;
      for (const c of held) this.write(c);
    } catch (e) {
      this.onLogError(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private write(chunk: Buffer): void {
    const log = this.log;
    if (log === undefined) return;
    if (!log.write(chunk) && !this.waitingDrain) {
      this.waitingDrain = true;
      this.opts.pause();
      log.once('drain', () => {
        this.waitingDrain = false;
        this.opts.resume();
      });
    }
  }

  /** A failing log file must not fail the action: keep the tails, say so in stderr. */
  private onLogError(e: Error): void {
    this.logError ??= e;
    const log = this.log;
    this.log = undefined;
    log?.destroy();
    if (this.waitingDrain) {
      this.waitingDrain = false;
      this.opts.resume();
    }
  }
}

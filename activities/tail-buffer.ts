const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Decodes bytes as UTF-8, replacing invalid sequences with U+FFFD and removing NUL characters. */
function decodeUtf8Lossy(buf: Uint8Array): string {
  const s = decoder.decode(buf);
  return s.includes('\0') ? s.replace(/\0/g, '') : s;
}

/** When a tail starts inside a multi-byte character, its 1–3 continuation bytes are noise: drop them. */
function skipLeadingContinuationBytes(buf: Buffer): Buffer {
  let i = 0;
  while (i < 3 && i < buf.length && ((buf[i] ?? 0) & 0xc0) === 0x80) i++;
  return i === 0 ? buf : buf.subarray(i);
}

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

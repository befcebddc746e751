/**
 * Masking secret values in an action's output stream before anything keeps it (tails returned to
 * the workflow, full-output files, captured values): each occurrence becomes `***`.
 *
 * Invariants:
 * - a secret split across chunks is still masked: the masker holds back the end of what it has
 *   seen (at most `longest secret - 1` bytes) while it could be the start of a secret, until the
 *   next chunk (or the end of the stream) decides;
 * - secrets are matched as bytes (their UTF-8 form), so a chunk boundary inside a multi-byte
 *   character changes nothing;
 * - values shorter than {@link MIN_MASKED_LENGTH} bytes are not masked: masking `1` or `on` would
 *   garble ordinary output and protect nothing;
 * - at one position the longest matching secret wins (a secret that contains another one is
 *   masked whole).
 */

/** Values shorter than this (in UTF-8 bytes) are not masked (docs/cli.md "Secrets"). */
export const MIN_MASKED_LENGTH = 4;

/** What a masked value is replaced with. */
const MASK = '***';
const MASK_BYTES = Buffer.from(MASK);

/** The distinct values worth masking, longest first, as bytes. */
export function maskableSecrets(values: Iterable<string>): Buffer[] {
  const seen = new Set<string>();
  const out: Buffer[] = [];
  for (const v of values) {
    if (seen.has(v)) continue;
    seen.add(v);
    const b = Buffer.from(v, 'utf8');
    if (b.length >= MIN_MASKED_LENGTH) out.push(b);
  }
  return out.sort((a, b) => b.length - a.length);
}

/** Masks one string at once (for text that is complete, such as an error message). */
export function maskText(text: string, secrets: readonly Buffer[]): string {
  if (secrets.length === 0) return text;
  const m = new StreamMasker(secrets);
  return Buffer.concat([m.push(Buffer.from(text, 'utf8')), m.end()]).toString('utf8');
}

/** Every string inside a parsed JSON value masked (keys and values); numbers, booleans and null as they are. */
export function maskValue<T>(value: T, secrets: readonly Buffer[]): T {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return maskText(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => maskValue(v, secrets)) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [maskText(k, secrets), maskValue(v, secrets)])) as T;
}

/** A masking stage for one byte stream (see the module invariants). */
export class StreamMasker {
  private pending: Buffer = Buffer.alloc(0);
  private readonly hold: number;

  /** @param secrets as from {@link maskableSecrets}: longest first, none empty. */
  constructor(private readonly secrets: readonly Buffer[]) {
    this.hold = secrets.reduce((n, s) => Math.max(n, s.length - 1), 0);
  }

  /** Takes the next chunk; returns the bytes now known to be masked (possibly none). */
  push(chunk: Buffer): Buffer {
    if (this.secrets.length === 0) return chunk;
    const data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const { out, rest } = this.scan(data, false);
    this.pending = rest;
    return out;
  }

  /** The held-back bytes, masked: call once when the stream ended. */
  end(): Buffer {
    const { out } = this.scan(this.pending, true);
    this.pending = Buffer.alloc(0);
    return out;
  }

  /**
   * Masks every complete match that starts before the cut and returns the rest raw. The cut is the
   * first position (in the last `hold` bytes) from which the remaining bytes could still begin a
   * secret that the next chunk completes; at the end of the stream, the end. Holding back only
   * such a tail keeps the arrival order of both streams in the full log as it was.
   */
  private scan(data: Buffer, final: boolean): { out: Buffer; rest: Buffer } {
    const base = Math.max(0, data.length - this.hold);
    const parts: Buffer[] = [];
    let from = 0;
    let cut: number;
    for (;;) {
      cut = final ? data.length : this.partialStart(data, Math.max(base, from));
      const m = this.nextMatch(data, from);
      if (m === undefined || m.at >= cut) break;
      parts.push(data.subarray(from, m.at), MASK_BYTES);
      from = m.at + m.length;
    }
    parts.push(data.subarray(from, cut));
    // Copied: the rest may hold a slice of a large chunk that would otherwise stay referenced.
    return {
      out: parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts),
      rest: Buffer.from(data.subarray(cut)),
    };
  }

  /** The first position >= `from` whose remaining bytes are a proper prefix of a secret; else the end. */
  private partialStart(data: Buffer, from: number): number {
    for (let p = from; p < data.length; p++) {
      const left = data.length - p;
      for (const s of this.secrets) {
        if (left < s.length && data.compare(s, 0, left, p, data.length) === 0) return p;
      }
    }
    return data.length;
  }

  /** The earliest match at or after `from`; at one position the longest secret (they are sorted). */
  private nextMatch(data: Buffer, from: number): { at: number; length: number } | undefined {
    let best: { at: number; length: number } | undefined;
    for (const s of this.secrets) {
      const at = data.indexOf(s, from);
      if (at >= 0 && (best === undefined || at < best.at)) best = { at, length: s.length };
    }
    return best;
  }
}

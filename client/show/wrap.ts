/** Word wrapping for `ll-loop show`: text on lines of at most `width` characters. */

/**
 * A long word may break after one of these, or before a `$`: the seams of paths and `${a.b}`.
 * Strong seams (between segments) are preferred to weak ones (inside a segment's name).
 */
const STRONG_AFTER = new Set(['.', '/', '}', ',', ':']);
const WEAK_AFTER = new Set(['_', '-']);

/**
 * Where to cut `chars[from…]` so the piece fits `width`: the last seam that keeps a third of a
 * line. Returns the index in `chars` where the next piece starts.
 */
function cutAt(chars: readonly string[], from: number, width: number): number {
  for (const seams of [STRONG_AFTER, WEAK_AFTER]) {
    for (let i = from + width; i > from + width / 3; i -= 1) {
      if (seams.has(chars[i - 1]!) || (seams === STRONG_AFTER && chars[i] === '$')) return i;
    }
  }
  return from + width;
}

/**
 * Split a word longer than `width` into pieces that fit (a path or a `${…}` reference). Walks an
 * index, never re-slicing the rest: a word of megabytes (a huge description) stays linear.
 */
function pieces(word: string, width: number): string[] {
  const chars = [...word];
  const out: string[] = [];
  let from = 0;
  while (chars.length - from > width) {
    const at = cutAt(chars, from, width);
    out.push(chars.slice(from, at).join(''));
    from = at;
  }
  if (from < chars.length) out.push(chars.slice(from).join(''));
  return out;
}

/**
 * `text` (whitespace collapsed) as lines of at most `width` characters, breaking between words
 * and inside words only when one is wider than a line. With `maxLines`, the last line kept ends
 * in "…" when text was cut.
 */
export function wrapText(text: string, width: number, maxLines = Infinity): string[] {
  const size = Math.max(1, width);
  const lines: string[] = [];
  let line = '';
  for (const word of text
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((w) => pieces(w, size))) {
    const len = [...line].length;
    if (len > 0 && len + 1 + [...word].length > size) {
      lines.push(line);
      line = word;
    } else line = len > 0 ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = [...kept[maxLines - 1]!];
  kept[maxLines - 1] = `${last.slice(0, Math.min(last.length, size - 1)).join('')}…`;
  return kept;
}

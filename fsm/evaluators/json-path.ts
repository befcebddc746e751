/**
 * jq-style paths for `output_json`: parsing and lookup.
 *
 * Grammar: `.` is the whole document; then any sequence of `.key` (identifier `[A-Za-z_][A-Za-z0-9_]*`),
 * `."any key"`, `["any key"]` and `[n]` (`n` may be negative: counted from the end). A `.` may also
 * precede a bracket (`.[0]`, `.a.["b"]`). Quoted keys are JSON string literals.
 */
import { quote } from './error-result.js';

/** A key (string) or an array index (number, negative counts from the end). */
export type JsonPathSegment = string | number;

export type JsonPathParse = { ok: true; segments: JsonPathSegment[] } | { ok: false; error: string };

export type JsonPathLookup =
  | { kind: 'found'; value: unknown }
  /** A key or index that is not there, or anything below a `null`. */
  | { kind: 'missing' }
  /** The path asks for a key of a non-object or an index of a non-array. */
  | { kind: 'error'; error: string };

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const INDEX = /-?\d+/y;
const EXAMPLES = '".", ".a.b", ".a[0].b", ".a[-1]", \'.["key with space"]\'';

/** Parses a jq-style path; a malformed one yields an error naming the position and what was wrong. */
export function parseJsonPath(path: string): JsonPathParse {
  const text = path.trim();
  const fail = (at: number, why: string): JsonPathParse => ({
    ok: false,
    error: `malformed JSON path ${quote(path)} at character ${at + 1}: ${why} (expected a jq-style path such as ${EXAMPLES})`,
  });
  if (!text.startsWith('.')) return fail(0, 'a path starts with "."');
  if (text === '.') return { ok: true, segments: [] };

  const segments: JsonPathSegment[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '.') {
      i += 1;
      const next = text[i];
      if (next === '[') continue;
      if (next === '"') {
        const literal = readString(text, i);
        if (!literal.ok) return fail(i, literal.error);
        segments.push(literal.value);
        i = literal.end;
        continue;
      }
      IDENTIFIER.lastIndex = i;
      const ident = IDENTIFIER.exec(text);
      if (ident === null) {
        return fail(i, next === undefined ? 'a "." must be followed by a key' : `unexpected ${quote(next)} after "."`);
      }
      segments.push(ident[0]);
      i += ident[0].length;
      continue;
    }
    if (ch === '[') {
      i += 1;
      if (text[i] === '"') {
        const literal = readString(text, i);
        if (!literal.ok) return fail(i, literal.error);
        segments.push(literal.value);
        i = literal.end;
      } else {
        INDEX.lastIndex = i;
        const index = INDEX.exec(text);
        if (index === null) return fail(i, 'expected an integer index or a quoted key inside "[ ]"');
        const value = Number(index[0]);
        if (!Number.isSafeInteger(value)) return fail(i, `index ${index[0]} is too large`);
        segments.push(value);
        i += index[0].length;
      }
      if (text[i] !== ']') return fail(i, 'expected "]"');
      i += 1;
      continue;
    }
    return fail(i, `unexpected ${quote(ch ?? '')}`);
  }
  return { ok: true, segments };
}

/** Reads the JSON string literal starting at `text[start] === '"'`; `end` is just past its closing quote. */
function readString(
  text: string,
  start: number,
): { ok: true; value: string; end: number } | { ok: false; error: string } {
  let j = start + 1;
  while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  if (j >= text.length) return { ok: false, error: 'unterminated quoted key' };
  try {
    return { ok: true, value: JSON.parse(text.slice(start, j + 1)) as string, end: j + 1 };
  } catch {
    return { ok: false, error: 'invalid escape in quoted key' };
  }
}

/** Looks `segments` up in a parsed JSON document. */
export function resolveJsonPath(root: unknown, segments: readonly JsonPathSegment[]): JsonPathLookup {
  let current: unknown = root;
  for (const [depth, segment] of segments.entries()) {
    if (current === null || current === undefined) return { kind: 'missing' };
    const at = formatJsonPath(segments.slice(0, depth));
    if (typeof segment === 'number') {
      if (!Array.isArray(current)) {
        return { kind: 'error', error: `cannot index ${jsonType(current)} at ${at} with [${segment}]` };
      }
      const index = segment < 0 ? current.length + segment : segment;
      if (index < 0 || index >= current.length) return { kind: 'missing' };
      current = current[index];
    } else {
      if (typeof current !== 'object' || Array.isArray(current)) {
        return { kind: 'error', error: `cannot read key ${JSON.stringify(segment)} of ${jsonType(current)} at ${at}` };
      }
      if (!Object.hasOwn(current, segment)) return { kind: 'missing' };
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return { kind: 'found', value: current };
}

/** The canonical text of a path, e.g. `.a[0]["b c"]`; `.` for the whole document. */
function formatJsonPath(segments: readonly JsonPathSegment[]): string {
  if (segments.length === 0) return '.';
  return segments
    .map((segment) => {
      if (typeof segment === 'number') return `[${segment}]`;
      return /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
    })
    .join('');
}

/** `null`, `array`, `object`, `string`, `number` or `boolean`. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * `action_stall` (little-loops): is a loop repeating itself? The tracked values (context keys,
 * default `action`) are read at each evaluation; when they are the same as at the previous one for
 * `max_repeat` evaluations in a row the verdict is `no` (stalled), else `yes`. A bare key is looked
 * up as `context.<key>`, then `captured.<key>`, `prev.<key>`, `result.<key>` (missing: empty), a
 * dotted one as written, as in little-loops. Evaluations that track the same keys share one memory,
 * as there; it lives in the run's snapshot (`RunData.actionStalls`), so runs never share it.
 * Pure: the comparison is diff_stall's (compareDiffStall) over a hash of the values.
 */
import { interpolate, type InterpolationScope } from '../interpolate.js';
import type { EvalResult } from '../types.js';
import { compareDiffStall, type DiffStallMemory } from './diff-stall.js';

export const DEFAULT_TRACK = ['action'];

/** The memory key of a set of tracked keys (order does not matter). */
export function actionStallKey(track: readonly string[]): string {
  return [...track].sort().join('|');
}

function valueOf(key: string, scope: InterpolationScope): string {
  const candidates = key.includes('.') ? [key] : ['context', 'captured', 'prev', 'result'].map((ns) => `${ns}.${key}`);
  for (const ref of candidates) {
    try {
      return interpolate(`\${${ref}}`, scope);
    } catch {
      // not there: the next namespace, else empty
    }
  }
  return '';
}

/** A 53-bit hash of `text` (cyrb53) as hex: the memory holds this, not the values. */
function hash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16);
}

/** The verdict and the memory to keep; details `{ stall_count, max_repeat, hash_changed, tracked_keys }`. */
export function judgeActionStall(
  track: readonly string[],
  maxRepeat: number,
  previous: DiffStallMemory | undefined,
  scope: InterpolationScope,
): { result: EvalResult; memory: DiffStallMemory } {
  const text = track.map((key) => `${key}=${valueOf(key, scope)}`).join('|');
  const { result, memory } = compareDiffStall(maxRepeat, previous, hash(text));
  const { stall_count, diff_changed } = result.details as { stall_count: number; diff_changed: boolean };
  return {
    result: {
      verdict: result.verdict,
      details: { stall_count, max_repeat: maxRepeat, hash_changed: diff_changed, tracked_keys: [...track] },
    },
    memory,
  };
}

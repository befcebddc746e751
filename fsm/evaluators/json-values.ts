/**
 * Equality and truthiness of JSON values, as `output_json` uses them.
 */
import { toNumber } from './numbers.js';

/** Structural equality of JSON values (object key order does not matter). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
}

/**
 * `jsonEqual`, except that a number and a numeric string compare as numbers (at the top level only):
 * targets rendered from templates arrive as strings, so `"0"` equals `0`.
 */
export function looseJsonEqual(value: unknown, target: unknown): boolean {
  if (typeof value === 'number' && typeof target === 'string') return toNumber(target) === value;
  if (typeof value === 'string' && typeof target === 'number') return toNumber(value) === target;
  return jsonEqual(value, target);
}

/** False for null, undefined, false, 0, "", [] and {}; true for everything else. */
export function isTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

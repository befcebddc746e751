/**
 * Number parsing shared by the numeric evaluators. Only plain decimal notation counts as a number
 * (`3.5`, `-2`, `+1`, `1e3`, `.5`): not `""`, hex, `Infinity` or `1,000`, which `Number()` would
 * accept or misread. Results are always finite.
 */
import { quote } from './error-result.js';

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A finite number from a number or a decimal string (surrounding whitespace allowed), else undefined. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (!DECIMAL.test(text)) return undefined;
  const parsed = Number(text);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** Outcome of reading a measurement from command output. */
export type NumericParse = { ok: true; value: number } | { ok: false; error: string };

/** Reads a number from command output: the whole trimmed text, else its last non-empty line. */
export function parseNumericOutput(output: string): NumericParse {
  const whole = toNumber(output);
  if (whole !== undefined) return { ok: true, value: whole };
  const lines = output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const last = lines.at(-1);
  if (last === undefined) return { ok: false, error: 'could not parse a number: the output is empty' };
  const fromLast = toNumber(last);
  if (fromLast !== undefined) return { ok: true, value: fromLast };
  const seen = lines.length === 1 ? quote(last) : `last line ${quote(last)}`;
  return { ok: false, error: `could not parse a number from the output (${seen})` };
}

/**
 * The one shape of an evaluator failure: verdict `error` with a readable `details.error`.
 */
import type { EvalResult } from '../types.js';

/** An `error` verdict; `error` always wins over a same-named key in `details`. */
export function evalError(error: string, details: Record<string, unknown> = {}): EvalResult {
  return { verdict: 'error', details: { ...details, error } };
}

/** The message of anything thrown. */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** `text` as a JSON string literal, cut to `max` characters (plus an ellipsis) for messages. */
export function quote(text: string, max = 80): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

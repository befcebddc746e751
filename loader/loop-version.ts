/**
 * A loop's version: the first 12 hex digits of the SHA-256 of its loaded definition as canonical
 * JSON (keys sorted at every level). The loader has already merged `from:` parents, fragments,
 * imports and paradigms into the definition, so a change to any of them is a new version; key
 * order and YAML formatting are not. The run's `context` values are left out: they differ from
 * run to run (`--context`, `run_dir`, `input_hash`) without the loop changing. Computed by the
 * command that starts a run and kept in the run's memo (`loop_version`), never in workflow code.
 */
import { createHash } from 'node:crypto';
import type { LoopDefinition } from '../fsm/schema.js';

/** JSON with every object's keys sorted; `undefined` fields dropped as JSON.stringify drops them. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The version of a loaded loop definition (12 hex digits). */
export function loopVersion(definition: LoopDefinition): string {
  const { context: _values, ...loop } = definition as LoopDefinition & { context?: unknown };
  return createHash('sha256').update(canonicalJson(loop)).digest('hex').slice(0, 12);
}

/** What `history` and `report` show for a run started before runs recorded their loop's version. */
export const UNKNOWN_VERSION = 'unknown';

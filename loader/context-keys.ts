/**
 * Which context keys a loop uses, so that a mistyped `--context tagret=…` is refused instead of
 * silently doing nothing. A key is used when the loop declares it (`context:`, `parameters:`) or
 * references it (`${context.KEY…}`) anywhere in its expanded form (fragments and `from:` already
 * merged, a paradigm compiled), or when a sub-loop it hands its context to (`context_passthrough`)
 * uses it. A passthrough sub-loop whose name is computed at run time could use anything: then
 * every key is accepted.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { didYouMean } from '../fsm/suggest.js';
import { LOAD_ERROR_KIND, LoadError } from './errors.js';

const REFERENCE = /\$\{\s*context\.([A-Za-z0-9_-]+)/g;

function referencedIn(text: string): string[] {
  return [...text.matchAll(REFERENCE)].map((m) => m[1]!);
}

function keysOf(value: unknown): string[] {
  return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
}

/** How to find a sub-loop's file from its name (loader/load.ts's resolver). */
export type ResolveLoop = (name: string, cwd: string) => string;

/**
 * The context keys `raw` (a loop as plain data) uses, or undefined when they cannot be known.
 * `seen`: the files already walked (a sub-loop cycle is the validator's to report).
 */
export function usedContextKeys(
  raw: Record<string, unknown>,
  cwd: string,
  resolve: ResolveLoop,
  seen: ReadonlySet<string> = new Set(),
): Set<string> | undefined {
  const used = new Set([
    ...keysOf(raw.context),
    ...keysOf(raw.parameters),
    ...referencedIn(JSON.stringify(raw)),
    // little-loops' input fields name context keys too.
    ...(Array.isArray(raw.required_inputs) ? raw.required_inputs.filter((k) => typeof k === 'string') : []),
    ...(typeof raw.input_key === 'string' ? [raw.input_key] : []),
  ]);
  for (const state of Object.values(
    raw.states && typeof raw.states === 'object' ? (raw.states as Record<string, unknown>) : {},
  )) {
    const s = state as { loop?: unknown; context_passthrough?: unknown } | null;
    if (!s || typeof s.loop !== 'string' || s.context_passthrough !== true) continue;
    if (s.loop.includes('${')) return undefined;
    let file: string;
    try {
      file = resolve(s.loop, cwd);
    } catch {
      continue; // a missing sub-loop is a diagnostic of its own
    }
    if (seen.has(file)) continue;
    let child: unknown;
    try {
      child = parse(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    if (!child || typeof child !== 'object') continue;
    const childKeys = usedContextKeys(child as Record<string, unknown>, cwd, resolve, new Set([...seen, file]));
    if (childKeys === undefined) return undefined;
    for (const k of childKeys) used.add(k);
  }
  return used;
}

/**
 * Refuse `--context` keys the loop does not use (a LoadError naming them and the keys it uses).
 * `--context-allow-unknown` skips this check.
 */
export function checkContextKeys(
  given: readonly string[],
  used: ReadonlySet<string> | undefined,
  loopName: string,
): void {
  if (used === undefined) return;
  const unknown = given.filter((k) => !used.has(k));
  if (unknown.length === 0) return;
  const known = [...used].sort();
  const first = unknown[0]!;
  const hint = unknown.length === 1 ? didYouMean(first, known) : '';
  throw new LoadError(
    LOAD_ERROR_KIND.badContext,
    `--context ${unknown.map((k) => `"${k}"`).join(', ')}: loop "${loopName}" does not use ${unknown.length === 1 ? 'this key' : 'these keys'}${hint}; it uses ${known.length ? known.join(', ') : 'no context keys'}`,
    `fix the key's name, or pass --context-allow-unknown to hand it to the loop anyway`,
  );
}

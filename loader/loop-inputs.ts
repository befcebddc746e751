/**
 * What a loop takes from the command line besides `--context`: the context keys it uses (so that
 * `run <loop> <input>` and a steering file can be checked, loader/context-keys.ts) and the key its
 * positional input goes to (`input_key`, default `input`). Read from the loop as written, once its
 * `from:` and fragments are merged and its paradigm compiled, before validation: the positional
 * input is a context value, and context values are given before a loop is validated.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'yaml';
import { compileParadigm } from '../fsm/definition/paradigms/index.js';
import { usedContextKeys } from './context-keys.js';
import { expandReuse } from './reuse.js';
import { resolveLoopFile } from './load.js';

/** The key a loop's positional input goes to when the loop names none (little-loops' default). */
export const DEFAULT_INPUT_KEY = 'input';

export interface LoopInputs {
  /** The loop's name, for messages (its file's name when it has none). */
  name: string;
  /** The context key `run <loop> <text>` sets. */
  inputKey: string;
  /** The context keys the loop uses; undefined when they cannot be known (any key is accepted). */
  used: Set<string> | undefined;
}

/**
 * The inputs of the loop in `file`, or undefined when it cannot be read as a loop (its load then
 * reports why, in its own words).
 */
export function loopInputs(file: string, cwd: string): LoopInputs | undefined {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'), { version: '1.2' });
  } catch {
    return undefined;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const reused = expandReuse(doc as Record<string, unknown>, file, cwd);
  const compiled = reused.raw ? compileParadigm(reused.raw) : undefined;
  if (!reused.raw || !compiled?.raw) return undefined;
  const raw = { ...reused.raw, ...compiled.raw };
  // `input_key` is a top-level field of the loop; read defensively, whatever the schema says of it.
  const inputKey = (raw as { input_key?: unknown }).input_key;
  return {
    name: typeof raw.name === 'string' ? raw.name : basename(file),
    inputKey: typeof inputKey === 'string' && inputKey !== '' ? inputKey : DEFAULT_INPUT_KEY,
    used: usedContextKeys(raw, cwd, resolveLoopFile),
  };
}

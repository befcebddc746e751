/** Turning zod issues into diagnostics that say what is wrong and how to fix it. */
import type { z } from 'zod';
import { error, type Diagnostic } from '../diagnostics.js';
import {
  LOOP_KEYS,
  PARALLEL_KEYS,
  RETRY_KEYS,
  PARAMETER_KEYS,
  STATE_KEYS,
  UNSUPPORTED_EVALUATORS,
  evaluateConfig,
  llmOverride,
} from '../schema.js';
import { didYouMean } from '../suggest.js';

const EVALUATOR_TYPES = evaluateConfig.options.map((o) => o.shape.type.value as string);

const EVALUATOR_KEYS: Record<string, string[]> = Object.fromEntries(
  evaluateConfig.options.map((o) => [o.shape.type.value as string, Object.keys(o.shape)]),
);

function at(root: unknown, path: PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

type Path = Array<string | number>;

/** The fields of an entry of `commands:` (the "How to run" section of `ll-loop show`). */
const COMMAND_KEYS = ['cmd', 'comment'];
const COMMANDS_FIX =
  'write commands: as a list of entries like - cmd: "ll-loop run my-loop --context x=1" with an optional comment: "…" (both text)';

function knownKeysAt(raw: unknown, path: Path): string[] {
  if (path.length === 0) return LOOP_KEYS;
  if (path.length === 2 && path[0] === 'states') return STATE_KEYS;
  if (path[path.length - 1] === 'evaluate') {
    const type = at(raw, [...path, 'type']);
    return typeof type === 'string' ? (EVALUATOR_KEYS[type] ?? []) : [];
  }
  if (path.length === 3 && path[0] === 'states' && path[2] === 'retry') return RETRY_KEYS;
  if (path.length === 3 && path[0] === 'states' && path[2] === 'parallel') return PARALLEL_KEYS;
  if (path.length === 1 && path[0] === 'llm')
    return ['provider', 'model', 'base_url', 'api_key_env', 'max_tokens', 'timeout', 'enabled', 'schema_retries'];
  if (path[path.length - 1] === 'llm') return Object.keys(llmOverride.shape);
  if (path.length === 2 && path[0] === 'commands') return COMMAND_KEYS;
  if (path.length === 2 && path[0] === 'parameters') return PARAMETER_KEYS;
  return [];
}

/** State fields that mean several commands in one state, which the format has no field for. */
const SEVERAL_COMMANDS = ['commands', 'actions', 'steps', 'script', 'run'];
const SEVERAL_COMMANDS_FIX =
  'a state runs one action: chain the commands in it (action: "npm ci && npm test"), or give each a state of its own (next: to the following one); a parallel: state runs several loops side by side';

/** The unknown field's fix where a near spelling would mislead, else undefined. */
function unknownKeyFix(path: Path, key: string): { hint: string; fix: string } | undefined {
  // An entry of the top-level commands: list (ll-loop show's "How to run") takes cmd:, not command:.
  if (path.length === 2 && path[0] === 'commands' && ['command', 'run', 'script'].includes(key))
    return {
      hint: ' (did you mean "cmd"?)',
      fix: `rename it "cmd"; commands: only lists command lines ll-loop show prints under "How to run" (a loop's work is in its states' action:)`,
    };
  if (path.length === 2 && path[0] === 'states' && SEVERAL_COMMANDS.includes(key))
    return { hint: '', fix: SEVERAL_COMMANDS_FIX };
  return undefined;
}

function unknownKey(raw: unknown, path: Path, key: string): Diagnostic {
  const special = unknownKeyFix(path, key);
  if (special) {
    const where = path[0] === 'states' ? 'state field' : 'field';
    return error([...path, key], `unknown ${where} "${key}"${special.hint}`, special.fix);
  }
  const known = knownKeysAt(raw, path);
  const hint = didYouMean(key, known);
  const where =
    path.length === 0 ? 'top-level field' : path.length === 2 && path[0] === 'states' ? 'state field' : 'field';
  const fix = hint
    ? `rename it${hint.replace(' (did you mean', '').replace('?)', '')}`
    : known.length
      ? `remove it; allowed here: ${known.join(', ')}`
      : 'remove it';
  return error([...path, key], `unknown ${where} "${key}"${hint}`, fix);
}

function evaluatorType(raw: unknown, path: Path): Diagnostic | undefined {
  const evaluatePath = path[path.length - 1] === 'type' ? path.slice(0, -1) : path;
  if (evaluatePath[evaluatePath.length - 1] !== 'evaluate') return undefined;
  const type = at(raw, [...evaluatePath, 'type']);
  if (typeof type !== 'string') {
    return error([...evaluatePath], 'evaluate needs a type', `set type: to one of ${EVALUATOR_TYPES.join(', ')}`);
  }
  if ((UNSUPPORTED_EVALUATORS as readonly string[]).includes(type)) {
    return error(
      [...evaluatePath, 'type'],
      `evaluator "${type}" is not supported by this version of ll-loop`,
      `use one of ${EVALUATOR_TYPES.join(', ')}`,
    );
  }
  return error(
    [...evaluatePath, 'type'],
    `unknown evaluator type "${type}"${didYouMean(type, EVALUATOR_TYPES)}`,
    `use one of ${EVALUATOR_TYPES.join(', ')}`,
  );
}

const AT_LEAST_ONE = 'set a whole number of at least 1 (how many handoffs a run continues), or remove it for no cap';
/** How to fix a bad value of fields whose type says too little. */
const FIXES: Record<string, string> = {
  on_handoff:
    'use pause (wait for ll-loop resume), spawn (continue at once in a fresh session) or terminate (end the run)',
  'config.handoff_threshold': "set a whole number from 1 to 100 (a percentage of the agent's context)",
  'config.automation.max_continuations': AT_LEAST_ONE,
  'config.continuation.max_continuations': AT_LEAST_ONE,
};

/**
 * The fix for a loop without `initial`: the state to start in, the first one written that is not
 * terminal (where a loop's states usually begin), with the others to choose from.
 */
function initialFix(raw: unknown): string | undefined {
  const states = at(raw, ['states']);
  if (!states || typeof states !== 'object' || Array.isArray(states)) return undefined;
  const names = Object.keys(states);
  const terminal = (name: string) => (states as Record<string, { terminal?: unknown }>)[name]?.terminal === true;
  const first = names.find((n) => !terminal(n)) ?? names[0];
  if (first === undefined) return undefined;
  return `add initial: ${first} to the loop (the state a run starts in${names.length > 1 ? `; its states: ${names.join(', ')}` : ''})`;
}

/** One diagnostic per problem zod found (unknown keys expanded one per key). */
export function schemaDiagnostics(issues: readonly z.core.$ZodIssue[], raw: unknown): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const issue of issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push(unknownKey(raw, path, key));
      continue;
    }
    if (issue.code === 'custom' && issue.params && typeof issue.params.unknownKey === 'string') {
      out.push(unknownKey(raw, path.slice(0, -1), issue.params.unknownKey));
      continue;
    }
    if (issue.code === 'invalid_union' || (issue.code === 'invalid_value' && path[path.length - 1] === 'type')) {
      const d = evaluatorType(raw, path);
      if (d) {
        out.push(d);
        continue;
      }
    }
    const value = at(raw, path);
    // A missing field whose type is a union (e.g. `target`, a number or a template) fails as invalid_union.
    // An enum field left out (a parameter's `type`) fails as invalid_value.
    if (
      value === undefined &&
      (issue.code === 'invalid_type' || issue.code === 'invalid_union' || issue.code === 'invalid_value')
    ) {
      const field = path[path.length - 1];
      out.push(
        error(
          path,
          `missing required field "${String(field)}"`,
          (path.length === 1 && field === 'initial' ? initialFix(raw) : undefined) ??
            `add ${String(field)}: to ${path.length > 1 ? path.slice(0, -1).join('.') : 'the loop'}`,
        ),
      );
      continue;
    }
    const shown = value === undefined ? '' : ` (got ${JSON.stringify(value)?.slice(0, 60)})`;
    out.push(
      error(
        path,
        `${path.join('.') || 'loop'}: ${issue.message}${shown}${nearValue(issue, value)}`,
        FIXES[path.join('.')] ?? (path[0] === 'commands' ? COMMANDS_FIX : fixFor(issue, path, value)),
      ),
    );
  }
  return out;
}

/** " (did you mean …?)" for a misspelt enum value. */
function nearValue(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code !== 'invalid_value' || typeof value !== 'string') return '';
  return didYouMean(value, issue.values.map(String));
}

/** YAML 1.1's booleans, which YAML 1.2 (the loader's) reads as strings. */
const YAML11_BOOLEANS: Readonly<Record<string, boolean>> = {
  yes: true,
  no: false,
  on: true,
  off: false,
  y: true,
  n: false,
};

/** What to write instead, for an issue the cases above do not cover: every load error has a fix. */
function fixFor(issue: z.core.$ZodIssue, path: Path, value: unknown): string {
  const field = path.length ? path.join('.') : 'the loop';
  if (issue.code === 'invalid_type') {
    const expected = String(issue.expected);
    if (expected === 'boolean' && typeof value === 'string' && Object.hasOwn(YAML11_BOOLEANS, value.toLowerCase())) {
      return `write ${field.split('.').at(-1)}: ${String(YAML11_BOOLEANS[value.toLowerCase()])} (YAML 1.2 reads ${value} as text; only true and false are booleans)`;
    }
    if (expected === 'boolean') return `write true or false`;
    if (expected === 'number' && typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
      return `write the number without quotes: ${value.trim()}`;
    return `give ${field} a${/^[aeiou]/.test(expected) ? 'n' : ''} ${expected}`;
  }
  if (issue.code === 'invalid_value' && 'values' in issue)
    return `use one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  if (issue.code === 'too_small' || issue.code === 'too_big')
    return `change ${field} to fit: ${issue.message.replace(/^Too (small|big): /, '')}`;
  return `see what ${field} takes in docs/loop-format.md`;
}

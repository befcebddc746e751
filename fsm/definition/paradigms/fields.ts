/**
 * Checking a paradigm file before it is compiled: the paradigm's own fields and the loop-level
 * settings it passes through, with diagnostics that name the field (as a path into the paradigm
 * document, which the loader turns into line:column), say what was expected and show a fix.
 */
import type { z } from 'zod';
import { loopDefinition } from '../../schema.js';
import { error, type Diagnostic } from '../../diagnostics.js';
import { closest, didYouMean } from '../../suggest.js';

type Path = Diagnostic['path'];

/**
 * Loop-level settings a paradigm file may set; the compiled FSM gets them unchanged. Everything
 * of the FSM format except `initial` and `states`, which the compilers generate. `name` is
 * required here; a paradigm that derives its name (goal) makes it optional.
 */
export const settingsSchema = loopDefinition.omit({ initial: true, states: true });
const SETTING_KEYS = Object.keys(settingsSchema.shape);

/**
 * The loop-level settings a paradigm document wrote, as written (no defaults added: the compiled
 * FSM says what the author said, and validation applies the defaults). `name` is left to the
 * compiler, which may derive it.
 */
export function settingsOf(raw: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(raw).filter(([key]) => key !== 'name' && SETTING_KEYS.includes(key)));
}

/** What this module reads of a zod schema's definition. */
interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
}

const defOf = (node: z.ZodType): SchemaDef => node.def as unknown as SchemaDef;
const WRAPPERS = ['optional', 'default', 'nullable', 'prefault', 'readonly'];

/** The mapping schemas a value at this node may be: past wrappers, every mapping option of a union. */
function mappings(node: z.ZodType | undefined): Array<Record<string, z.ZodType>> {
  if (!node) return [];
  const def = defOf(node);
  if (def.innerType && WRAPPERS.includes(def.type)) return mappings(def.innerType);
  if (def.type === 'union') return (def.options ?? []).flatMap((option) => mappings(option));
  return def.type === 'object' && def.shape ? [def.shape] : [];
}

/** The schemas a value at this node may be, for list items: past wrappers and unions. */
function elements(node: z.ZodType | undefined): z.ZodType[] {
  if (!node) return [];
  const def = defOf(node);
  if (def.innerType && WRAPPERS.includes(def.type)) return elements(def.innerType);
  if (def.type === 'union') return (def.options ?? []).flatMap((option) => elements(option));
  return def.type === 'array' && def.element ? [def.element] : [];
}

/** The keys of the mapping a zod schema expects at `path` (for "did you mean"); [] when none. */
export function shapeKeysAt(schema: z.ZodType, path: Path): string[] {
  let nodes: z.ZodType[] = [schema];
  for (const step of path) {
    nodes =
      typeof step === 'number'
        ? nodes.flatMap((n) => elements(n))
        : nodes.flatMap((n) => mappings(n).flatMap((shape) => (shape[step] ? [shape[step]] : [])));
  }
  return [...new Set(nodes.flatMap((n) => mappings(n).flatMap((shape) => Object.keys(shape))))];
}

/** What a field must hold, and a value that would do, for messages and fixes. */
export interface FieldHelp {
  expected: string;
  example: string;
  /** For lists: what each item must hold. */
  item?: string;
}

/** Help for the loop-level settings (paradigm fields add their own). */
const SETTING_HELP: Record<string, FieldHelp> = {
  name: { expected: 'a non-empty name', example: 'my-loop' },
  description: { expected: 'text', example: '"what this loop does"' },
  context: { expected: 'a mapping of names to values', example: '{ src: "src/" }' },
  scope: { expected: 'a list of paths', example: '["src/"]', item: 'a path' },
  max_iterations: { expected: 'a whole number of 1 or more', example: '20' },
  max_steps: { expected: 'a whole number of 1 or more', example: '100' },
  backoff: { expected: 'a number of seconds (0 or more)', example: '2' },
  timeout: { expected: 'a number of seconds greater than 0', example: '1800' },
  default_timeout: { expected: 'a number of seconds greater than 0', example: '600' },
  maintain: { expected: 'true or false', example: 'true' },
  maintain_delay: { expected: 'a number of seconds (0 or more)', example: '60' },
  category: { expected: 'text', example: 'quality' },
  labels: { expected: 'a list of strings', example: '[ci, types]', item: 'a string' },
  llm: { expected: 'a mapping with model, max_tokens, timeout and/or enabled', example: '{ model: sonnet }' },
  model: { expected: 'a model name', example: 'sonnet' },
  max_tokens: { expected: 'a whole number of 1 or more', example: '256' },
  enabled: { expected: 'true or false', example: 'false' },
};

/** `constraints[0].check` */
function formatPath(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || 'the document';
}

function valueAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The help for the field a path ends at: by its name, or (for a list item) by its list's name. */
function helpFor(path: Path, help: Record<string, FieldHelp>): { expected: string; example: string } | undefined {
  const last = path[path.length - 1];
  if (typeof last === 'number') {
    const list = help[String(path[path.length - 2])];
    return list ? { expected: list.item ?? list.expected, example: list.example } : undefined;
  }
  return last === undefined ? undefined : help[last];
}

export interface FieldRules {
  paradigm: string;
  /** Help for this paradigm's fields, merged over the settings' help. */
  help: Record<string, FieldHelp>;
  /** Known keys of the mapping at a path (for "did you mean"). */
  knownKeys(path: Path): string[];
}

function unknownKey(rules: FieldRules, path: Path, key: string): Diagnostic {
  const at = [...path, key];
  if (path.length === 0 && (key === 'states' || key === 'initial')) {
    return error(
      at,
      `${key}: is not written in a paradigm: ${rules.paradigm} file; the ${rules.paradigm} compiler generates the states`,
      `remove ${key}:, or write paradigm: fsm to write the states yourself`,
    );
  }
  const known = rules.knownKeys(path);
  const hint = closest(key, known);
  const where = path.length === 0 ? `a paradigm: ${rules.paradigm} file` : formatPath(path);
  const fix = hint ? `rename it to "${hint}"` : `remove it; allowed here: ${known.join(', ')}`;
  return error(at, `unknown field "${key}" in ${where}${didYouMean(key, known)}`, fix);
}

/** One diagnostic per problem zod found in a paradigm file (unknown keys one per key). */
export function fieldDiagnostics(issues: readonly z.core.$ZodIssue[], raw: unknown, rules: FieldRules): Diagnostic[] {
  const help = { ...SETTING_HELP, ...rules.help };
  const out: Diagnostic[] = [];
  /** Fields a misspelt key stands for: "missing" is then the same problem, told once (as the typo). */
  const misspelt = new Set<string>();
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    for (const key of issue.keys) {
      const meant = closest(key, rules.knownKeys(path));
      if (meant !== undefined) misspelt.add(JSON.stringify([...path, meant]));
    }
  }
  for (const issue of issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push(unknownKey(rules, path, key));
      continue;
    }
    const value = valueAt(raw, path);
    const field = formatPath(path);
    const info = helpFor(path, help);
    if (value === undefined) {
      if (misspelt.has(JSON.stringify(path))) continue;
      const owner = path.length > 1 ? ` in ${formatPath(path.slice(0, -1))}` : '';
      const what = info ? ` (${info.expected})` : '';
      out.push(
        error(
          path,
          `missing required field "${String(path[path.length - 1])}"${owner} for paradigm: ${rules.paradigm}${what}`,
          `add ${String(path[path.length - 1])}: ${info?.example ?? '…'}`,
        ),
      );
      continue;
    }
    const expected = info ? info.expected : issue.message;
    const fix = info ? `write ${field}: ${info.example}` : `see docs/paradigms.md for the ${rules.paradigm} fields`;
    out.push(error(path, `${field} must be ${expected} (got ${shown(value)})`, fix));
  }
  return out;
}

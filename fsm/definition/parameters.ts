/**
 * Typed loop parameters (`parameters:` on a loop, bound by `with:` on a parent's sub-loop state or
 * by `--context NAME=VALUE` on the command line). Pure.
 *
 * A bound parameter becomes `context.<name>` in the loop. Values arrive as strings (command line,
 * interpolated `with:` templates) or as YAML scalars (literal `with:` values); `coerceParameter`
 * turns them into the declared type or says why it cannot.
 */
import type { LoopDefinition } from '../schema.js';
import { hasRefs } from '../template.js';

export type ParameterSpec = NonNullable<LoopDefinition['parameters']>[string];

export interface ParameterProblem {
  parameter: string;
  message: string;
  fix: string;
  /** Worth saying, but the loop still runs. */
  warning?: boolean;
  /** Where in the file (default: the parameter's declaration). */
  at?: Array<string | number>;
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TRUE = new Set(['true', 'yes', '1', 'on']);
const FALSE = new Set(['false', 'no', '0', 'off']);

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a mapping' : String(value);
}

/** What a value of the parameter's type is, for fixes: "an integer", "one of a, b". */
export function typeNoun(spec: ParameterSpec): string {
  if (spec.type === 'enum') return `one of ${(spec.values ?? []).join(', ')}`;
  return spec.type === 'integer' ? 'an integer' : `a ${spec.type}`;
}

/** `value` as the parameter's type, or the reason it is not one. */
export function coerceParameter(spec: ParameterSpec, value: unknown): { value: unknown } | { error: string } {
  const text = typeof value === 'string' ? value.trim() : undefined;
  switch (spec.type) {
    case 'string':
      if (typeof value === 'string') return { value };
      if (typeof value === 'number' || typeof value === 'boolean') return { value: String(value) };
      return { error: `expected a string, got ${describe(value)}` };
    case 'command':
      if (typeof value !== 'string' || value.trim() === '')
        return { error: `expected a shell command, got ${describe(value)}` };
      return { value };
    case 'path':
      if (typeof value !== 'string' || value.trim() === '') return { error: `expected a path, got ${describe(value)}` };
      if (value.includes('\0')) return { error: 'a path cannot contain a NUL character' };
      return { value };
    case 'integer':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return { value };
      if (text !== undefined && INTEGER.test(text) && Number.isSafeInteger(Number(text)))
        return { value: Number(text) };
      return { error: `expected an integer, got ${describe(value)}` };
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return { value };
      if (text !== undefined && NUMBER.test(text)) return { value: Number(text) };
      return { error: `expected a number, got ${describe(value)}` };
    case 'boolean':
      if (typeof value === 'boolean') return { value };
      if (text !== undefined && TRUE.has(text.toLowerCase())) return { value: true };
      if (text !== undefined && FALSE.has(text.toLowerCase())) return { value: false };
      return { error: `expected true or false, got ${describe(value)}` };
    case 'enum': {
      const allowed = spec.values ?? [];
      const candidate =
        typeof value === 'string'
          ? value
          : typeof value === 'number' || typeof value === 'boolean'
            ? String(value)
            : undefined;
      if (candidate !== undefined && allowed.includes(candidate)) return { value: candidate };
      return { error: `expected one of ${allowed.join(', ')}, got ${describe(value)}` };
    }
  }
}

/**
 * The `--context` keys that are data in shell actions: all of them except the values of declared
 * `command` parameters, which the operator gives as code to run (docs/decisions.md).
 */
export function commandLineDataKeys(def: Pick<LoopDefinition, 'parameters'>, given: Record<string, unknown>): string[] {
  return Object.keys(given).filter((key) => def.parameters?.[key]?.type !== 'command');
}

/**
 * The given context values (command-line strings: `--context` of `steer`, `rerun`, `resume`) that
 * a declared parameter's type refuses, worded as binding them at the start of a run is.
 */
export function contextTypeProblems(
  def: Pick<LoopDefinition, 'name' | 'parameters'>,
  given: Record<string, unknown>,
): Array<{ key: string; message: string; fix: string }> {
  const out: Array<{ key: string; message: string; fix: string }> = [];
  for (const [key, value] of Object.entries(given)) {
    const spec = def.parameters?.[key];
    if (spec === undefined) continue;
    const coerced = coerceParameter(spec, value);
    if ('error' in coerced)
      out.push({
        key,
        message: `parameter "${key}" of loop "${def.name}": ${coerced.error}`,
        fix: fixFor(key, spec, 'command line'),
      });
  }
  return out;
}

/** How to give parameter `name` a value, for messages. */
export type BindingSource = 'command line' | 'with';

function fixFor(name: string, spec: ParameterSpec, source: BindingSource): string {
  const example =
    spec.type === 'enum'
      ? (spec.values?.[0] ?? 'VALUE')
      : spec.type === 'boolean'
        ? 'true'
        : spec.type === 'integer' || spec.type === 'number'
          ? '3'
          : 'VALUE';
  return source === 'command line'
    ? `pass --context ${name}=${example}`
    : `set with: { ${name}: ${example} } on the state that runs this loop`;
}

/**
 * Whether `with:` may set context key `key` of a loop that has no parameter of that name: it is a
 * key of the loop's `context:` or a `${context.key}` the loop reads. little-loops binds `with:`
 * keys into the child's context this way (its catalog passes `targets`, `goals`, `plan_file` to
 * children that declare them under `context:`); a name the child never reads is still refused.
 */
export function isContextInput(def: Pick<LoopDefinition, 'context' | 'states'>, key: string): boolean {
  if (Object.hasOwn(def.context, key)) return true;
  const read = new RegExp(`\\$\\{\\s*context\\.${key.replace(/[^A-Za-z0-9_-]/g, '')}(?![A-Za-z0-9_-])`);
  return read.test(JSON.stringify(def.states));
}

/**
 * Bind `given` to the loop's parameters: every given name must be declared, every required
 * parameter given (or defaulted), every value of the declared type. Returns the context entries.
 * `given` may hold keys that are not parameters when `strict` is false (plain `--context` keys).
 */
export function bindParameters(
  def: LoopDefinition,
  given: Record<string, unknown>,
  options: { source: BindingSource; strict: boolean; requireAll: boolean },
): { values: Record<string, unknown>; problems: ParameterProblem[] } {
  const specs = def.parameters ?? {};
  const values: Record<string, unknown> = {};
  const problems: ParameterProblem[] = [];
  const names = Object.keys(specs);
  if (options.strict) {
    for (const key of Object.keys(given)) {
      if (key in specs) continue;
      if (options.source === 'with' && isContextInput(def, key)) {
        values[key] = given[key];
        continue;
      }
      problems.push({
        parameter: key,
        message: `loop "${def.name}" has no parameter "${key}"`,
        fix: names.length
          ? `use one of its parameters: ${names.join(', ')}`
          : `loop "${def.name}" declares no parameters: remove with:, or use context_passthrough: true`,
      });
    }
  }
  for (const [name, spec] of Object.entries(specs)) {
    let provided = Object.hasOwn(given, name) ? given[name] : undefined;
    let fromContext = false;
    // The loop's own `context:` value (a `from:` child setting its parent's parameter, say) comes
    // before the declared default; a template there is filled in when the loop runs.
    if (provided === undefined && Object.hasOwn(def.context, name)) {
      const own = def.context[name];
      if (typeof own === 'string' && hasRefs(own)) continue;
      // An empty value there is a placeholder (little-loops writes `run_dir: ""` beside a
      // required parameter): the parameter is not given by it.
      if (own !== '') {
        provided = own;
        fromContext = true;
      }
    }
    if (provided === undefined) {
      if (spec.default !== undefined) values[name] = spec.default;
      else if (spec.required && options.requireAll) {
        const about = spec.description ? ` (${spec.description})` : '';
        problems.push({
          parameter: name,
          message: `loop "${def.name}" needs parameter "${name}"${about}`,
          fix: fixFor(name, spec, options.source),
        });
      }
      continue;
    }
    const coerced = coerceParameter(spec, provided);
    if ('error' in coerced) {
      problems.push({
        parameter: name,
        message: `parameter "${name}" of loop "${def.name}": ${coerced.error}`,
        // A value the loop's own context: gives is wrong where it is written (a child's file).
        ...(fromContext
          ? { at: ['context', name], fix: `make context.${name} ${typeNoun(spec)}` }
          : { fix: fixFor(name, spec, options.source) }),
      });
    } else values[name] = coerced.value;
  }
  if (options.requireAll && options.source === 'command line') problems.push(...missingInputs(def, given));
  return { values, problems };
}

/**
 * little-loops' `required_inputs`: context keys a run started from the command line must be given
 * (or have in the loop's `context:`), not empty. A sub-loop's come from its parent's routes, which
 * validation checks instead.
 */
function missingInputs(def: LoopDefinition, given: Record<string, unknown>): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  for (const key of def.required_inputs ?? []) {
    const value = Object.hasOwn(given, key) ? given[key] : def.context[key];
    if (value !== undefined && value !== null && String(value).trim() !== '') continue;
    const positional = key === (def.input_key ?? 'input') ? ` (its input: ll-loop run ${def.name} "<text>")` : '';
    problems.push({
      parameter: key,
      at: ['required_inputs', (def.required_inputs ?? []).indexOf(key)],
      message: `loop "${def.name}" needs "${key}"${positional}: it is in required_inputs and ${value === undefined ? 'was not given' : 'is empty'}`,
      fix: `pass --context ${key}=VALUE`,
    });
  }
  return problems;
}

/** Problems in the declarations themselves (enum without values, a default of the wrong type). */
export function specProblems(def: LoopDefinition): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  for (const [name, spec] of Object.entries(def.parameters ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      problems.push({
        parameter: name,
        message: `parameter name "${name}" is not an identifier`,
        fix: 'use letters, digits and _ (it is read as ${context.' + name + '})',
      });
    }
    if (spec.type === 'enum' && !spec.values?.length) {
      problems.push({
        parameter: name,
        message: `enum parameter "${name}" has no values`,
        fix: 'add values: [a, b, ...]',
      });
    } else if (spec.type !== 'enum' && spec.values !== undefined) {
      problems.push({
        parameter: name,
        message: `values: only applies to enum parameters ("${name}" is ${spec.type})`,
        fix: 'remove values:, or set type: enum',
      });
    }
    if (spec.default !== undefined) {
      const coerced = coerceParameter(spec, spec.default);
      if ('error' in coerced)
        problems.push({
          parameter: name,
          message: `default of parameter "${name}": ${coerced.error}`,
          fix: `give ${typeNoun(spec)} as the default`,
        });
    }
    if (spec.required && spec.default !== undefined) {
      problems.push({
        parameter: name,
        message: `parameter "${name}" is required and has a default: the default is used when none is given`,
        fix: 'remove required: true or the default',
        warning: true,
      });
    }
  }
  return problems;
}

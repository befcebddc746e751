/**
 * Fragment parameters (little-loops' form): a fragment may declare `parameters:` and write
 * `${param.NAME}` in its fields; a state that uses it binds them with `with:`, e.g.
 *
 *   fragments:
 *     bump: { parameters: { file: { type: string, required: true } }, action: "touch ${param.file}" }
 *   states:
 *     a: { fragment: bump, with: { file: counter.txt }, next: done }
 *
 * Expanded with the fragment (fragments.ts): each `${param.NAME}` in the state's strings becomes
 * the bound value (else the declared default), and `parameters:`/`with:` are dropped, so what
 * validation sees is a plain state. A sub-loop state (`loop:`) keeps its `with:` for the child.
 */
import { error, type Diagnostic } from '../diagnostics.js';
import { isPlainObject, type PlainObject } from './merge.js';
import { didYouMean } from '../suggest.js';

const PARAM_REF = /\$\{\s*param\.([A-Za-z_][A-Za-z0-9_]*)\s*\}/g;

function substitute(value: unknown, values: Record<string, string>): unknown {
  if (typeof value === 'string') return value.replace(PARAM_REF, (ref, name: string) => values[name] ?? ref);
  if (Array.isArray(value)) return value.map((v) => substitute(v, values));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, values)]));
  return value;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Bind the fragment's parameters in `merged` (the state over its fragment), in place; the problems
 * (a required parameter not bound, a binding of no parameter, a `${param.X}` nothing declares).
 */
export function bindFragmentParameters(stateName: string, fragment: string, merged: PlainObject): Diagnostic[] {
  const specs = merged.parameters;
  const out: Diagnostic[] = [];
  if (!isPlainObject(specs)) return out;
  const isSubloop = merged.loop !== undefined;
  const bindings = !isSubloop && isPlainObject(merged.with) ? merged.with : {};
  const names = Object.keys(specs);
  const values: Record<string, string> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const declared = isPlainObject(spec) ? spec : {};
    if (Object.hasOwn(bindings, name)) values[name] = text(bindings[name]);
    else if (declared.default !== undefined) values[name] = text(declared.default);
    else if (declared.required === true)
      out.push(
        error(
          ['states', stateName, 'with'],
          `fragment "${fragment}" needs parameter "${name}"`,
          `add with: { ${name}: <value> } to state ${stateName}`,
        ),
      );
  }
  for (const key of Object.keys(bindings)) {
    if (!names.includes(key))
      out.push(
        error(
          ['states', stateName, 'with', key],
          `fragment "${fragment}" has no parameter "${key}"${didYouMean(key, names)}`,
          `use one of its parameters: ${names.join(', ')}`,
        ),
      );
  }
  delete merged.parameters;
  if (!isSubloop) delete merged.with;
  for (const [key, value] of Object.entries(merged)) merged[key] = substitute(value, values);
  return out;
}

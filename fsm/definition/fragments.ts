/**
 * Composing a loop from its layers and fragments (docs/reuse.md): the `from:` chain's documents
 * are merged base first, and each state's `fragment:` is expanded under the state's own keys.
 * Pure: the loader (client/reuse.ts) reads the files and builds the fragment table.
 *
 * Invariant of the result: no top-level `from`, `import` or `fragments` key and no state
 * `fragment` key; what validation sees is a plain FSM document.
 */
import { error, type Diagnostic } from '../diagnostics.js';
import { cloneValue, isPlainObject, mergeLayers, setOwn, type PlainObject } from './merge.js';
import { REUSE_LOOP_KEYS } from '../schema.js';
import { didYouMean } from '../suggest.js';
import { bindFragmentParameters } from './fragment-params.js';

/** A named partial state, with where it was defined (opaque here; the loader's file reference). */
export interface FragmentDef<O> {
  name: string;
  body: PlainObject;
  origin: O;
}

export type FragmentTable<O> = Map<string, FragmentDef<O>>;

/** A diagnostic and the layer (index into the composed layers) whose document it belongs to. */
interface Finding {
  diagnostic: Diagnostic;
  layer: number;
}

export interface Composed<O> {
  raw: PlainObject;
  findings: Finding[];
  /** The fragment each expanded state used, by state name. */
  applied: Map<string, FragmentDef<O>>;
}

const FRAGMENT_EXAMPLE = 'write fragments: { shell_check: { action_type: shell, evaluate: { type: exit_code } } }';

/** Problems in a `fragments:` block; paths are relative to the document that holds it. */
export function fragmentsBlockProblems(block: unknown): Diagnostic[] {
  if (!isPlainObject(block)) {
    return [
      error(['fragments'], 'fragments: must be a mapping from fragment names to partial states', FRAGMENT_EXAMPLE),
    ];
  }
  const out: Diagnostic[] = [];
  for (const [name, body] of Object.entries(block)) {
    if (!isPlainObject(body)) {
      out.push(
        error(
          ['fragments', name],
          `fragment "${name}" must be a mapping of state fields`,
          'give it state fields, e.g. evaluate: { type: exit_code }',
        ),
      );
    } else if (Object.hasOwn(body, 'fragment')) {
      // One level only: a fragment is a plain partial state, so expansion cannot recurse.
      out.push(
        error(
          ['fragments', name, 'fragment'],
          `fragment "${name}" uses another fragment; fragments cannot be nested`,
          `copy the fields of fragment "${String(body.fragment)}" into "${name}"`,
        ),
      );
    }
  }
  return out;
}

/** Problems in an `import:` value; paths are relative to the document that holds it. */
export function importListProblems(value: unknown): Diagnostic[] {
  if (!Array.isArray(value)) {
    return [error(['import'], 'import: must be a list of fragment library files', 'write import: [lib/common.yaml]')];
  }
  return value.flatMap((item, i) =>
    typeof item === 'string' && item.trim() !== ''
      ? []
      : [
          error(
            ['import', i],
            'each import: entry must be the path of a fragment library file',
            'write a path such as lib/common.yaml',
          ),
        ],
  );
}

/**
 * Adds a block's well-formed fragments to `table`; a name already there is replaced, so callers
 * add libraries in increasing priority. Malformed entries are skipped (reported by
 * `fragmentsBlockProblems`).
 */
export function addFragments<O>(table: FragmentTable<O>, block: unknown, origin: O): void {
  if (!isPlainObject(block)) return;
  for (const [name, body] of Object.entries(block)) {
    if (isPlainObject(body) && !Object.hasOwn(body, 'fragment')) table.set(name, { name, body, origin });
  }
}

function omit(doc: PlainObject, keys: readonly string[]): PlainObject {
  const out: PlainObject = {};
  for (const [key, value] of Object.entries(doc)) if (!keys.includes(key)) setOwn(out, key, value);
  return out;
}

/** One state's versions, base first, after the last deletion; either one non-mapping or only mappings. */
interface StateVersions {
  versions: Array<{ value: unknown; layer: number }>;
}

function collectStates(layers: readonly PlainObject[]): Map<string, StateVersions> {
  const states = new Map<string, StateVersions>();
  layers.forEach((doc, layer) => {
    // `states: null` over inherited states deletes them all.
    if (doc.states === null && layer > 0) states.clear();
    if (!isPlainObject(doc.states)) return;
    for (const [name, value] of Object.entries(doc.states)) {
      const entry = states.get(name) ?? { versions: [] };
      states.set(name, entry);
      const replaces = value === null || !isPlainObject(value) || entry.versions.some((v) => !isPlainObject(v.value));
      // `null` over an inherited state deletes it; in the bottom layer there is nothing to delete.
      if (value === null && layer > 0) entry.versions = [];
      else if (replaces) entry.versions = [{ value, layer }];
      else entry.versions.push({ value, layer });
    }
  });
  return states;
}

function describeKnown(table: ReadonlyMap<string, unknown>): string {
  const names = [...table.keys()].sort();
  return names.length ? `known fragments: ${names.join(', ')}` : 'no fragments are defined';
}

function composeState<O>(
  name: string,
  entry: StateVersions,
  table: ReadonlyMap<string, FragmentDef<O>>,
  composed: Composed<O>,
): unknown {
  const { versions } = entry;
  const last = versions[versions.length - 1]!;
  if (!isPlainObject(last.value)) return cloneValue(last.value);
  const bodies = versions.map((v) => v.value as PlainObject);
  const own = mergeLayers(bodies);
  const fragment = own.fragment;
  delete own.fragment;
  if (fragment === undefined) return own;
  // The layer that wrote the `fragment:` in effect is the one a problem with it belongs to.
  const setter = [...versions].reverse().find((v) => Object.hasOwn(v.value as PlainObject, 'fragment')) ?? last;
  const path = ['states', name, 'fragment'];
  if (typeof fragment !== 'string' || fragment.trim() === '') {
    composed.findings.push({
      layer: setter.layer,
      diagnostic: error(
        path,
        'fragment: must be the name of a fragment',
        `write fragment: <name>; ${describeKnown(table)}`,
      ),
    });
    return own;
  }
  const def = table.get(fragment);
  if (!def) {
    composed.findings.push({
      layer: setter.layer,
      diagnostic: error(
        path,
        `fragment "${fragment}" is not defined${didYouMean(fragment, [...table.keys()])}; ${describeKnown(table)}`,
        `define ${fragment} under fragments:, or add the library that has it to import:`,
      ),
    });
    return own;
  }
  composed.applied.set(name, def);
  // The fragment is the base and the state's layers go over it, so the state's keys win at every
  // depth. A fragment's description documents the fragment, not the states that use it.
  const merged = mergeLayers([omit(def.body, ['description']), ...bodies]);
  delete merged.fragment;
  for (const diagnostic of bindFragmentParameters(name, fragment, merged))
    composed.findings.push({ layer: setter.layer, diagnostic });
  return merged;
}

/**
 * The loop document from its layers (base first: the root of the `from:` chain … the loaded file)
 * and the fragment table: top-level keys merge as `mergeLayers` does; each state merges over the
 * fragment it names, the state's keys winning at every depth. A single layer is kept as written
 * except where `fragment:` is expanded.
 */
export function composeLoop<O>(
  layers: readonly PlainObject[],
  table: ReadonlyMap<string, FragmentDef<O>>,
): Composed<O> {
  const stripped = layers.map((doc) => omit(doc, REUSE_LOOP_KEYS));
  const composed: Composed<O> = { raw: {}, findings: [], applied: new Map() };
  const statesAreMappings = stripped.every(
    (doc) => doc.states === undefined || doc.states === null || isPlainObject(doc.states),
  );
  if (!statesAreMappings) {
    // Validation reports the malformed states: value; there is nothing to expand.
    composed.raw = mergeLayers(stripped);
    return composed;
  }
  const top = mergeLayers(stripped.map((doc) => omit(doc, ['states'])));
  if (stripped.some((doc) => isPlainObject(doc.states))) {
    const states: PlainObject = {};
    for (const [name, entry] of collectStates(stripped)) {
      if (entry.versions.length) setOwn(states, name, composeState(name, entry, table, composed));
    }
    top.states = states;
  } else if (stripped.length === 1 && Object.hasOwn(stripped[0]!, 'states')) {
    // `states: null` written in a lone file stays for validation to report.
    top.states = stripped[0]!.states;
  }
  composed.raw = top;
  return composed;
}

/**
 * `flow:`, little-loops' linear shorthand for a loop's states: a list of state names run in order,
 * each going `next` to the one after it and the last one terminal. An entry `name?yes:no` is a
 * branch instead: the state goes `on_yes` to `yes` and `on_no` to `no`. `state_defs:` gives each
 * named state its body (action, evaluate, its own routes), merged over what the list gives, so a
 * body's `next:` or `terminal:` wins. The result is a loop with `states:` and without `flow:` and
 * `state_defs:`; as in little-loops, `flow:` replaces any `states:` (docs/loop-format.md "flow").
 *
 * Runs on the loop as written, before fragments are expanded and a paradigm compiled, as in
 * little-loops (after `from:` there; here on the file itself).
 */
import { error, warning, type Diagnostic } from '../diagnostics.js';
import { deepMerge, isPlainObject, setOwn, type PlainObject } from './merge.js';

const ENTRY = 'name, or name?yes_state:no_state';

export interface FlowExpansion {
  raw: PlainObject;
  diagnostics: Diagnostic[];
}

/** Splits an entry: `name` or `name?yes:no` (undefined when a branch is malformed). */
function parseEntry(entry: string): { name: string; branch?: { yes: string; no: string } } | undefined {
  const at = entry.indexOf('?');
  if (at < 0) return entry ? { name: entry } : undefined;
  const name = entry.slice(0, at);
  const targets = entry.slice(at + 1);
  const colon = targets.indexOf(':');
  const yes = targets.slice(0, colon);
  const no = targets.slice(colon + 1);
  if (!name || colon < 0 || !yes || !no) return undefined;
  return { name, branch: { yes, no } };
}

/** The loop with `flow:` expanded into `states:`; unchanged when it has no `flow:`. */
export function expandFlow(raw: PlainObject): FlowExpansion {
  if (!Object.hasOwn(raw, 'flow')) return { raw, diagnostics: [] };
  const flow = raw.flow;
  if (!Array.isArray(flow) || flow.length === 0) {
    return {
      raw,
      diagnostics: [error(['flow'], 'flow: must be a non-empty list of states', `write one entry a line: ${ENTRY}`)],
    };
  }
  const diagnostics: Diagnostic[] = [];
  const entries = flow.map((entry, i) => {
    const parsed = typeof entry === 'string' ? parseEntry(entry) : undefined;
    if (!parsed) {
      diagnostics.push(
        error(['flow', i], `flow: entry ${JSON.stringify(entry)} is not a state or a branch`, `write ${ENTRY}`),
      );
    }
    return parsed;
  });
  const defs = raw.state_defs ?? {};
  if (!isPlainObject(defs)) {
    diagnostics.push(error(['state_defs'], 'state_defs: must be a mapping of state names to state bodies'));
  }
  if (diagnostics.length) return { raw, diagnostics };
  const bodies = defs as PlainObject;
  const states: PlainObject = {};
  entries.forEach((entry, i) => {
    const { name, branch } = entry!;
    const skeleton: PlainObject = {};
    if (branch) Object.assign(skeleton, { on_yes: branch.yes, on_no: branch.no });
    else if (i < entries.length - 1) skeleton.next = entries[i + 1]!.name;
    if (i === entries.length - 1) skeleton.terminal = true;
    const body = bodies[name];
    setOwn(states, name, isPlainObject(body) ? deepMerge(skeleton, body) : skeleton);
  });
  const named = new Set(Object.keys(states));
  for (const name of Object.keys(bodies)) {
    if (!named.has(name)) {
      diagnostics.push(
        warning(
          ['state_defs', name],
          `state_defs: "${name}" is not in flow:, so it defines no state`,
          `add ${name} to flow:`,
        ),
      );
    }
  }
  if (Object.hasOwn(raw, 'states')) {
    diagnostics.push(
      warning(
        ['states'],
        'states: is replaced by the states flow: lists, as in little-loops',
        'keep one of flow: and states:',
      ),
    );
  }
  const out: PlainObject = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'flow' || key === 'state_defs') continue;
    setOwn(out, key, key === 'states' ? states : value);
  }
  if (!Object.hasOwn(out, 'states')) setOwn(out, 'states', states);
  return { raw: out, diagnostics };
}

/** Where a generated state's field is written: under `state_defs:`, else its `flow:` entry. */
export function flowSourcePath(path: Diagnostic['path'], raw: PlainObject): Diagnostic['path'] {
  if (path[0] !== 'states' || typeof path[1] !== 'string') return path;
  const name = path[1];
  const defs = raw.state_defs;
  if (isPlainObject(defs) && Object.hasOwn(defs, name)) return ['state_defs', ...path.slice(1)];
  const flow = Array.isArray(raw.flow) ? raw.flow : [];
  const at = flow.findIndex((entry) => typeof entry === 'string' && (entry === name || entry.startsWith(`${name}?`)));
  return at < 0 ? ['flow'] : ['flow', at];
}

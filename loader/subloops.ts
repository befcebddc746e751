/**
 * Load-time checks of sub-loop states (`loop: <name>`) whose name is static: the child exists and
 * is valid (recursively), the chain of loops never comes back to a loop already in it, and the
 * state's `with:` fits the child's `parameters:`. Everything here is reported before the parent
 * starts; the child is loaded again by the worker when the state runs (activities/load-subloop.ts).
 */
import { error, hasErrors, warning, type Diagnostic } from '../fsm/diagnostics.js';
import { coerceParameter, isContextInput, typeNoun } from '../fsm/definition/parameters.js';
import type { LoopDefinition } from '../fsm/schema.js';
import { didYouMean } from '../fsm/suggest.js';
import { hasRefs } from '../fsm/template.js';
import { capturedNames, hasPassthrough, uncapturedError, uncapturedRefs } from '../fsm/definition/template-checks.js';
import { unsetContextRefs } from '../fsm/definition/unset-context.js';
import { LoadError } from './errors.js';

/** Loads a child loop file (loader/load.ts), carrying the chain of files for cycle detection. */
type ChildLoader = (
  file: string,
  chain: readonly string[],
) => { definition?: LoopDefinition; diagnostics: Diagnostic[] };

export interface SubloopContext {
  cwd: string;
  /** Files from the top-level loop down to this one. */
  chain: readonly string[];
  resolve: (name: string, cwd: string) => string;
  load: ChildLoader;
  /** Context keys the command line adds (they count as present for passthrough). */
  extraContext?: readonly string[];
  /**
   * A run is about to start with every value it will have: a child's `${context.KEY}` its state
   * does not give is an error, not a warning.
   */
  runStarts?: boolean;
}

/** Diagnostics for every static sub-loop state of `def` (loaded from `ctx.chain`'s last file). */
export function checkSubloops(def: LoopDefinition, ctx: SubloopContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const cache = new Map<string, { file: string; definition?: LoopDefinition } | { problem: Diagnostic }>();
  for (const ref of childRefs(def)) {
    const { loop, path } = ref;
    let child = cache.get(loop);
    if (!child) {
      child = loadChild(loop, path, ctx, out);
      cache.set(loop, child);
    }
    if ('problem' in child) {
      out.push({ ...child.problem, path });
      continue;
    }
    if (!child.definition) {
      out.push(error(path, `sub-loop "${loop}" (${child.file}) is not valid; see its errors`, `fix ${child.file}`));
      continue;
    }
    out.push(...checkBindings(def, ref.stateName, ref.state, child.definition, ctx, ref.base));
    out.push(...checkChildContext(def, ref, child.definition, child.file, ctx));
  }
  if (hasPassthrough(def)) out.push(...checkReturnedCaptures(def, ctx));
  return out;
}

/** A static child loop a state names: a sub-loop state's, a parallel state's loop or each of its branches. */
interface ChildRef {
  loop: string;
  /** Where the name is written. */
  path: Diagnostic['path'];
  stateName: string;
  /** What binds the child's parameters (`with:`, `context_passthrough:`), and where it is written. */
  state: Pick<LoopDefinition['states'][string], 'with' | 'context_passthrough'>;
  base: Diagnostic['path'];
}

function childRefs(def: LoopDefinition): ChildRef[] {
  const refs: ChildRef[] = [];
  for (const [name, state] of Object.entries(def.states)) {
    const base = ['states', name];
    if (state.loop !== undefined && !hasRefs(state.loop))
      refs.push({ loop: state.loop, path: [...base, 'loop'], stateName: name, state, base });
    const parallel = state.parallel;
    if (parallel === undefined) continue;
    const at = [...base, 'parallel'];
    if (parallel.loop !== undefined && !hasRefs(parallel.loop))
      refs.push({
        loop: parallel.loop,
        path: [...at, 'loop'],
        stateName: name,
        state: { with: parallel.with },
        base: at,
      });
    (parallel.branches ?? []).forEach((branch, i) => {
      const loop = typeof branch === 'string' ? branch : branch.loop;
      if (hasRefs(loop)) return;
      const withs = typeof branch === 'string' ? undefined : branch.with;
      const path = typeof branch === 'string' ? [...at, 'branches', i] : [...at, 'branches', i, 'loop'];
      refs.push({ loop, path, stateName: name, state: { with: withs }, base: [...at, 'branches', i] });
    });
  }
  return refs;
}

/**
 * validateLoop leaves `${captured.x}` unchecked in a loop with passthrough sub-loop states, since
 * `x` may come back from a child. Here the children are known: `x` must be captured by the loop
 * or returned by one of its passthrough children. A child named by a template is unknown until
 * it runs, so then nothing is reported.
 */
function checkReturnedCaptures(def: LoopDefinition, ctx: SubloopContext): Diagnostic[] {
  const available = returnedCaptures(def, ctx, ctx.chain);
  if (!available) return [];
  return uncapturedRefs(def, available).map(({ path, ref }) => uncapturedError(path, ref, available, def));
}

/** What a loop's captured values can hold when it ends: its own captures and its passthrough children's. */
function returnedCaptures(def: LoopDefinition, ctx: SubloopContext, chain: readonly string[]): Set<string> | undefined {
  const names = capturedNames(def);
  for (const state of Object.values(def.states)) {
    if (!state.context_passthrough || state.loop === undefined) continue;
    if (hasRefs(state.loop)) return undefined;
    let file: string;
    try {
      file = ctx.resolve(state.loop, ctx.cwd);
    } catch {
      return undefined; // reported by checkSubloops
    }
    if (chain.includes(file)) return undefined; // recursion, reported by checkSubloops
    const child = ctx.load(file, [...chain, file]).definition;
    const returned = child && returnedCaptures(child, ctx, [...chain, file]);
    if (!returned) return undefined;
    for (const n of returned) names.add(n);
  }
  return names;
}

function loadChild(
  loopName: string,
  path: Diagnostic['path'],
  ctx: SubloopContext,
  out: Diagnostic[],
): { file: string; definition?: LoopDefinition } | { problem: Diagnostic } {
  let file: string;
  try {
    file = ctx.resolve(loopName, ctx.cwd);
  } catch (err) {
    if (!(err instanceof LoadError)) throw err;
    return { problem: error(path, `sub-loop: ${err.message}`, err.fix ?? `create .loops/${loopName}.yaml`) };
  }
  const at = ctx.chain.indexOf(file);
  if (at >= 0) {
    const names = [...ctx.chain.slice(at), file].map(shortName);
    return {
      problem: error(
        path,
        `loop "${loopName}" runs itself: ${names.join(' → ')}; recursive sub-loops are rejected (nothing would bound the depth)`,
        'run the repeated work as states of one loop (route back to an earlier state) instead of calling the loop again',
      ),
    };
  }
  const loaded = ctx.load(file, [...ctx.chain, file]);
  // The child's own problems keep their file; only its errors matter here.
  out.push(...loaded.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ ...d, file: d.file ?? file })));
  return hasErrors(loaded.diagnostics) || !loaded.definition ? { file } : { file, definition: loaded.definition };
}

function shortName(file: string): string {
  return (file.split('/').pop() ?? file).replace(/\.ya?ml$/, '');
}

/**
 * The child's `${context.KEY}` references that its own file gives no value (unset-context.ts) must
 * come from the state: its `with:`, or with `context_passthrough:` the parent's context. Else the
 * child fails at that state when it runs: refused when a run starts, a warning otherwise (as for
 * the loop's own references; `validate` accepts little-loops' catalog, which does not check this).
 */
function checkChildContext(
  parent: LoopDefinition,
  ref: ChildRef,
  child: LoopDefinition,
  file: string,
  ctx: SubloopContext,
): Diagnostic[] {
  const { state, stateName, base } = ref;
  const present = new Set([
    ...Object.keys(state.with ?? {}),
    ...(state.context_passthrough
      ? [...Object.keys(parent.context), ...Object.keys(parent.parameters ?? {}), ...(ctx.extraContext ?? [])]
      : []),
  ]);
  const out: Diagnostic[] = [];
  const reported = new Set<string>();
  for (const { key, ref: read, path } of unsetContextRefs(child)) {
    if (present.has(key) || reported.has(key)) continue;
    reported.add(key);
    const at = `${shortName(file)}'s state "${String(path[1])}"`;
    const fix = state.context_passthrough
      ? `add ${key}: to this loop's context: (or pass --context ${key}=VALUE), or give ${key} a value in ${file}`
      : `add with: { ${key}: <value> } to ${base.length > 2 ? `${base.slice(2).join('.')} of ` : ''}state "${stateName}", or give ${key} a value under context: in ${file}`;
    const message = `sub-loop "${child.name}" reads ${read.raw} (${at}), which nothing gives it; it would fail there`;
    const where = [...base, state.with ? 'with' : base.length > 2 ? '' : 'loop'].filter((k) => k !== '');
    out.push(ctx.runStarts === true ? error(where, message, fix) : warning(where, message, fix));
  }
  return out;
}

/** `with:` against the child's parameters; with passthrough, the parent's context must hold them. */
function checkBindings(
  parent: LoopDefinition,
  stateName: string,
  state: ChildRef['state'],
  child: LoopDefinition,
  ctx: SubloopContext,
  base: Diagnostic['path'],
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const specs = child.parameters ?? {};
  const names = Object.keys(specs);
  if (state.with) {
    for (const [key, value] of Object.entries(state.with)) {
      const spec = specs[key];
      if (!spec && isContextInput(child, key)) continue; // sets the child's context key, as given
      if (!spec) {
        const inputs = [...names, ...Object.keys(child.context).filter((k) => !names.includes(k))];
        const fix = inputs.length
          ? `bind one of its parameters or context keys: ${inputs.join(', ')}`
          : `"${child.name}" declares no parameters or context; add parameters: to it, or use context_passthrough: true`;
        out.push(
          error(
            [...base, 'with', key],
            `sub-loop "${child.name}" has no parameter "${key}"${didYouMean(key, inputs)}`,
            fix,
          ),
        );
        continue;
      }
      if (typeof value === 'string' && hasRefs(value)) continue; // checked when the state runs
      const coerced = coerceParameter(spec, value);
      if ('error' in coerced)
        out.push(
          error(
            [...base, 'with', key],
            `parameter "${key}" of sub-loop "${child.name}": ${coerced.error}`,
            `give ${typeNoun(spec)}`,
          ),
        );
    }
  }
  const present = new Set([
    ...Object.keys(state.with ?? {}),
    ...(state.context_passthrough ? [...Object.keys(parent.context), ...(ctx.extraContext ?? [])] : []),
  ]);
  for (const [key, spec] of Object.entries(specs)) {
    if (!spec.required || spec.default !== undefined || present.has(key)) continue;
    const fix = state.context_passthrough
      ? `add ${key}: to this loop's context:`
      : `add with: { ${key}: <value> } to ${base.length > 2 ? `${base.slice(2).join('.')} of ` : ''}state "${stateName}"`;
    out.push(
      error(
        [...base, state.with ? 'with' : base.length > 2 ? '' : 'loop'].filter((k) => k !== ''),
        `sub-loop "${child.name}" needs parameter "${key}"${spec.description ? ` (${spec.description})` : ''}`,
        fix,
      ),
    );
  }
  return out;
}

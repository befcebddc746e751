/**
 * Captures read before they are made: a `${captured.x}` (without a `:-default`) in a state that a
 * run can reach without passing a state that captures `x` fails there with "undefined variable".
 * Validation warns of it, naming the path: "never" when no state capturing `x` can come first (the
 * reference fails every time), else the shortest path that bypasses every capture. A warning, not
 * an error, as in little-loops (whose validator checks the same dominance): a path the graph allows
 * may be closed at run time by what the actions print, which no static check can see; little-loops'
 * `capture_reachability_ok: true` says the author checked it. Pure.
 */
import { warning, type Diagnostic } from '../diagnostics.js';
import { CURRENT, declaredTargets } from '../routing.js';
import type { LoopDefinition } from '../schema.js';
import type { RefSegment } from '../template.js';
import { hasPassthrough, namesCapturedBy, requiredCapturedRefs } from './template-checks.js';

/** Where each state can go next (routes, `$current`, a maintain restart, the caps' handlers); undefined when a target is a template. */
function successors(def: LoopDefinition): Map<string, string[]> | undefined {
  const handlers = [def.on_max_steps, def.on_max_iterations].filter((s): s is string => s !== undefined);
  const out = new Map<string, string[]>();
  for (const [name, state] of Object.entries(def.states)) {
    const targets = declaredTargets(state).map(({ target }) => (target === CURRENT ? name : target));
    if (targets.some((t) => t.includes('${'))) return undefined;
    if (state.terminal && def.maintain && state.on_maintain === undefined) targets.push(def.initial);
    out.set(
      name,
      [...targets, ...handlers].filter((t) => t in def.states),
    );
  }
  return out;
}

/**
 * The shortest path from the initial state to `target` that enters no state in `capturers` before
 * `target` (`target` itself may be one: its capture comes after its action). Undefined when none.
 */
function bypass(
  def: LoopDefinition,
  next: ReadonlyMap<string, string[]>,
  capturers: ReadonlySet<string>,
  target: string,
): string[] | undefined {
  const from = new Map<string, string | null>([[def.initial, null]]);
  const queue = [def.initial];
  while (queue.length) {
    const state = queue.shift()!;
    if (state === target) {
      const path = [state];
      for (let at = from.get(state); at; at = from.get(at)) path.unshift(at);
      return path;
    }
    if (capturers.has(state)) continue;
    for (const to of next.get(state) ?? []) {
      if (!from.has(to)) {
        from.set(to, state);
        queue.push(to);
      }
    }
  }
  return undefined;
}

/** True when some capturing state can run before `target` (a path initial → capturer → … → target). */
function captureCanPrecede(
  def: LoopDefinition,
  next: ReadonlyMap<string, string[]>,
  capturers: ReadonlySet<string>,
  target: string,
): boolean {
  const seen = new Set([def.initial]);
  const queue = [def.initial];
  const reachable: string[] = [];
  while (queue.length) {
    const state = queue.shift()!;
    reachable.push(state);
    for (const to of next.get(state) ?? []) if (!seen.has(to)) (seen.add(to), queue.push(to));
  }
  const starts = reachable.filter((s) => capturers.has(s));
  const after = new Set<string>();
  const work = starts.flatMap((s) => next.get(s) ?? []);
  while (work.length) {
    const state = work.pop()!;
    if (after.has(state)) continue;
    after.add(state);
    work.push(...(next.get(state) ?? []));
  }
  return after.has(target);
}

/** Fields rendered before the state's own action runs (its own capture is not made yet). */
const BEFORE_ACTION = new Set(['action', 'loop', 'prompt', 'with', 'params', 'parallel']);

export function checkCaptureOrder(def: LoopDefinition, out: Diagnostic[]): void {
  // A passthrough child's values come back under names only the loader knows (client/subloops.ts).
  if (def.capture_reachability_ok === true || hasPassthrough(def) || !(def.initial in def.states)) return;
  const next = successors(def);
  if (next === undefined) return;
  const capturers = new Map<string, Set<string>>();
  for (const [name, state] of Object.entries(def.states))
    for (const captured of namesCapturedBy(def, name, state)) {
      if (!capturers.has(captured)) capturers.set(captured, new Set());
      capturers.get(captured)!.add(name);
    }
  const bypasses = new Map<string, string[] | undefined>();
  const warned = new Set<string>();
  for (const { state, path, ref, name } of requiredCapturedRefs(def)) {
    const by = capturers.get(name);
    const key = `${name}\0${state}`;
    if (by === undefined || warned.has(key)) continue;
    if (by.has(state) && !BEFORE_ACTION.has(String(path[2]))) continue; // read after its own capture
    if (!bypasses.has(key)) bypasses.set(key, bypass(def, next, by, state));
    const route = bypasses.get(key);
    if (route === undefined) continue;
    warned.add(key);
    out.push(captureWarning(def, next, by, state, path, ref, route));
  }
}

function captureWarning(
  def: LoopDefinition,
  next: ReadonlyMap<string, string[]>,
  by: ReadonlySet<string>,
  name: string,
  path: Diagnostic['path'],
  ref: RefSegment,
  route: string[],
): Diagnostic {
  const head = ref.path[0]!;
  const capturers = [...by].map((s) => `"${s}"`).join(', ');
  const fallback = `or write ${ref.raw.slice(0, -1)}:-default} for a value until then`;
  if (!captureCanPrecede(def, next, by, name))
    return warning(
      path,
      `${ref.raw} is read before any state captures "${head}": no path reaches state "${name}" after ${capturers}, so it fails with "undefined variable" every time it runs`,
      `route to ${capturers} before "${name}", ${fallback}`,
    );
  const how =
    route.length === 1 ? `the run starts in state "${name}"` : `the path ${route.join(' → ')} reaches state "${name}"`;
  return warning(
    path,
    `${ref.raw} may be read before "${head}" is captured: ${how} without ${capturers}, and the state then fails with "undefined variable"`,
    `make that path pass ${capturers}, ${fallback}; if the actions close that path, capture_reachability_ok: true says so`,
  );
}

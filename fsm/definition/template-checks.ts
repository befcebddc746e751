/**
 * The checks of a loop's templates: where templates are (`stateTemplates`, also for `ll-loop
 * test`), which `${captured.*}` references can be satisfied, and the shell actions whose data would
 * land where bash evaluates it. Part of validation (fsm/definition/validate.ts); pure.
 */
import { isHumanState } from '../human.js';
import { error, warning, type Diagnostic } from '../diagnostics.js';
import { actionKind } from '../action.js';
import { declaredTargets } from '../routing.js';
import { checkShellTemplate } from '../shell-render.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import { didYouMean } from '../suggest.js';
import { TemplateSyntaxError, templateRefs, type RefSegment } from '../template.js';

type Path = Diagnostic['path'];

/** A template of a state: where it is, and which references are allowed there. */
export interface StateTemplate {
  path: Path;
  text: string;
  envAllowed: boolean;
  /** `${item}` and `${item_index}`: only in a parallel state's per-item `with:`. */
  itemAllowed?: true;
}

/** Every template in a state, with its path and whether `${env.*}` is allowed there (also for `ll-loop test`). */
export function stateTemplates(name: string, state: StateConfig): Array<StateTemplate> {
  const base: Path = ['states', name];
  const out: Array<StateTemplate> = [];
  if (state.action !== undefined) out.push({ path: [...base, 'action'], text: state.action, envAllowed: true });
  const evaluate = state.evaluate as Record<string, unknown> | undefined;
  for (const field of ['source', 'target', 'toward', 'tolerance', 'previous', 'prompt']) {
    const value = evaluate?.[field];
    if (typeof value === 'string') out.push({ path: [...base, 'evaluate', field], text: value, envAllowed: false });
  }
  for (const { key, target } of declaredTargets(state)) {
    out.push({ path: [...base, ...key.split('.')], text: target, envAllowed: false });
  }
  // Sub-loop inputs travel in the child's workflow input (history): no `${env.*}` there.
  if (state.loop !== undefined) out.push({ path: [...base, 'loop'], text: state.loop, envAllowed: false });
  // A human state's question is rendered in the workflow and shown to people: no `${env.*}`.
  if (state.prompt !== undefined) out.push({ path: [...base, 'prompt'], text: state.prompt, envAllowed: false });
  for (const [key, value] of Object.entries(state.with ?? {})) {
    if (typeof value === 'string') out.push({ path: [...base, 'with', key], text: value, envAllowed: false });
  }
  // An MCP tool's arguments are filled in on the worker, like an action: `${env.*}` is allowed.
  const visitParam = (value: unknown, path: Path): void => {
    if (typeof value === 'string') out.push({ path, text: value, envAllowed: true });
    else if (Array.isArray(value)) value.forEach((v, i) => visitParam(v, [...path, String(i)]));
    else if (value !== null && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) visitParam(v, [...path, k]);
  };
  if (state.params !== undefined) visitParam(state.params, [...base, 'params']);
  out.push(...parallelTemplates(base, state));
  return out;
}

/** A parallel state's templates: its items, its loop, each item's and each branch's `with:` (no `${env.*}`: they travel in history). */
function parallelTemplates(base: Path, state: StateConfig): StateTemplate[] {
  const parallel = state.parallel;
  if (parallel === undefined) return [];
  const at: Path = [...base, 'parallel'];
  const out: StateTemplate[] = [];
  if (typeof parallel.items === 'string') out.push({ path: [...at, 'items'], text: parallel.items, envAllowed: false });
  if (parallel.loop !== undefined) out.push({ path: [...at, 'loop'], text: parallel.loop, envAllowed: false });
  for (const [key, value] of Object.entries(parallel.with ?? {}))
    if (typeof value === 'string')
      out.push({ path: [...at, 'with', key], text: value, envAllowed: false, itemAllowed: true });
  (parallel.branches ?? []).forEach((branch, i) => {
    if (typeof branch === 'string') return;
    for (const [key, value] of Object.entries(branch.with ?? {}))
      if (typeof value === 'string')
        out.push({ path: [...at, 'branches', i, 'with', key], text: value, envAllowed: false, itemAllowed: true });
  });
  return out;
}

/** Names the states of `def` capture (a parallel state captures its join under its own name). */
export function capturedNames(def: LoopDefinition): Set<string> {
  return new Set(Object.entries(def.states).flatMap(([name, s]) => namesCapturedBy(def, name, s)));
}

/**
 * The names state `name` captures: its `capture:`; a human state its answer under its `capture:`,
 * else its own name (fsm/run/on-human.ts); a parallel state its join under its own name; a sub-loop
 * state with with:/passthrough its child's captured values under its own name
 * (subloopCapturesUnderName).
 */
export function namesCapturedBy(def: LoopDefinition, name: string, state: StateConfig): string[] {
  return [
    ...(state.capture ? [state.capture] : isHumanState(state) ? [name] : []),
    ...(state.parallel !== undefined || subloopCapturesUnderName(def, name) ? [name] : []),
  ];
}

/**
 * Whether sub-loop state `name` keeps its child's captured values under its own name
 * (`${captured.<name>.<child capture>.output}`, and `${captured.<name>.terminated_by}`), as
 * little-loops does for a child given `with:` or `context_passthrough`: when the loop reads
 * `${captured.<name>…}` and no state of it writes `capture: <name>` (that value is the author's).
 * A loop that reads no such value keeps the captured values it always had.
 */
export function subloopCapturesUnderName(def: LoopDefinition, name: string): boolean {
  const state = def.states[name];
  if (state?.loop === undefined || (state.with === undefined && state.context_passthrough !== true)) return false;
  if (Object.values(def.states).some((s) => s.capture === name)) return false;
  return Object.entries(def.states).some(([stateName, s]) =>
    stateTemplates(stateName, s).some(({ text }) => {
      try {
        return templateRefs(text).some((ref) => ref.namespace === 'captured' && ref.path[0] === name);
      } catch {
        return false; // reported by checkTemplates
      }
    }),
  );
}

/**
 * A loop with a `context_passthrough` sub-loop state gets the child's captured values back, so a
 * `${captured.x}` the loop itself never captures may be the child's: client/subloops.ts checks
 * those against the children's captures (`uncapturedRefs`), which only the loader can read.
 */
export function hasPassthrough(def: LoopDefinition): boolean {
  return Object.values(def.states).some((s) => s.context_passthrough === true);
}

/**
 * `${captured.x…}` references (without a `:-default`) to names outside `captures`, with where
 * they are. A reference with a default may name a value a parent passes in (passthrough).
 */
export function uncapturedRefs(
  def: LoopDefinition,
  captures: ReadonlySet<string>,
): Array<{ path: Path; ref: RefSegment }> {
  return requiredCapturedRefs(def)
    .filter(({ name }) => !captures.has(name))
    .map(({ path, ref }) => ({ path, ref }));
}

/** Every `${captured.x…}` without a `:-default` in the loop's templates: the state, the field, `x`. */
export function requiredCapturedRefs(
  def: LoopDefinition,
): Array<{ state: string; path: Path; ref: RefSegment; name: string }> {
  const out: Array<{ state: string; path: Path; ref: RefSegment; name: string }> = [];
  for (const [state, config] of Object.entries(def.states)) {
    for (const { path, text } of stateTemplates(state, config)) {
      let refs: RefSegment[];
      try {
        refs = templateRefs(text);
      } catch {
        continue; // reported by checkTemplates
      }
      for (const ref of refs) {
        const [name] = ref.path;
        if (ref.namespace === 'captured' && name !== undefined && ref.fallback === undefined)
          out.push({ state, path, ref, name });
      }
    }
  }
  return out;
}

/**
 * A `${captured.x}` no state captures: an error, or a warning in a loop that acknowledges it with
 * little-loops' `capture_reachability_ok: true` (a parent's passthrough brings the value; the state
 * takes its error route when it is missing), or in a sub-loop state's `with:`/`loop:`, which
 * little-loops does not check.
 */
export function uncapturedError(
  path: Path,
  ref: RefSegment,
  captures: ReadonlySet<string>,
  def?: LoopDefinition,
): Diagnostic {
  const head = ref.path[0] ?? '';
  const message = `${ref.raw} refers to "${head}", which no state captures${didYouMean(head, [...captures])}`;
  const fix = `add capture: "${head}" to the state that produces it, or write \${captured.${head}.output:-default} if a parent loop passes it in`;
  if (def?.capture_reachability_ok === true) {
    return warning(
      path,
      `${message}; capture_reachability_ok: true accepts it: the state takes its error route if it is missing when it runs`,
      fix,
    );
  }
  // little-loops checks no template of a sub-loop state (its with: values, its loop:): it loads,
  // and fails when it runs. So here, with a warning that says so.
  const [root, stateName, field] = path;
  if (
    root === 'states' &&
    typeof stateName === 'string' &&
    def?.states[stateName]?.loop !== undefined &&
    field !== 'route'
  ) {
    return warning(
      path,
      `${message}; the sub-loop state takes its error route if it is missing when it runs (little-loops does not check a sub-loop's with: either)`,
      fix,
    );
  }
  return error(path, message, fix);
}

export function checkTemplates(def: LoopDefinition, out: Diagnostic[]): void {
  const captures = capturedNames(def);
  // With passthrough, names may come back from a child: client/subloops.ts checks them.
  const deferCaptures = hasPassthrough(def);
  for (const [name, state] of Object.entries(def.states)) {
    for (const { path, text, envAllowed, itemAllowed } of stateTemplates(name, state)) {
      let refs: RefSegment[];
      try {
        refs = templateRefs(text);
      } catch (err) {
        if (!(err instanceof TemplateSyntaxError)) throw err;
        // little-loops reads a reference only when the state runs, so a loop with an unknown
        // modifier loads there and the state fails then: a warning here, the same failure then.
        if (err.kind === 'modifier')
          out.push(warning(path, `${err.message}; the state fails when it runs, as in little-loops`));
        else out.push(error(path, err.message));
        continue;
      }
      for (const ref of refs) {
        if ((ref.namespace === 'item' || ref.namespace === 'item_index') && !itemAllowed) {
          out.push(
            error(
              path,
              `${ref.raw} is only defined in a parallel state's with: (each item's parameters)`,
              'pass the item to the child loop through parallel.with: and use it there as ${context.<parameter>}',
            ),
          );
          continue;
        }
        checkRef(def, ref, path, envAllowed, captures, deferCaptures, out);
      }
    }
  }
}

/** Shell actions whose data lands where bash would evaluate it are refused before the run. */
export function checkShellActions(def: LoopDefinition, out: Diagnostic[]): void {
  for (const [name, state] of Object.entries(def.states)) {
    if (state.action === undefined || actionKind(state) !== 'shell') continue;
    let problem: string | undefined;
    try {
      problem = checkShellTemplate(state.action, def.context);
    } catch {
      continue; // template syntax errors are reported by checkTemplates
    }
    if (problem) out.push(error(['states', name, 'action'], problem));
  }
}

function checkRef(
  def: LoopDefinition,
  ref: RefSegment,
  path: Path,
  envAllowed: boolean,
  captures: Set<string>,
  deferCaptures: boolean,
  out: Diagnostic[],
): void {
  const [head] = ref.path;
  if (ref.namespace === 'env' && !envAllowed) {
    out.push(
      error(
        path,
        `${ref.raw} is only allowed in action:`,
        'environment values are read on the worker when an action runs; pass the value through context or the action instead',
      ),
    );
  } else if (ref.namespace === 'captured' && head !== undefined && !captures.has(head)) {
    if (!deferCaptures && ref.fallback === undefined) out.push(uncapturedError(path, ref, captures, def));
  }
}

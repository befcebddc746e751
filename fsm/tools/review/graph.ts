/**
 * The state graph as the review rules see it: every declared transition (fsm/routing.ts), the
 * verdict a transition is taken on, and the graph's cycles (strongly connected components). Pure.
 */
import { CURRENT, declaredTargets, NOT_VERDICT_ROUTES } from '../../routing.js';
import type { LoopDefinition, StateConfig } from '../../schema.js';

export interface Edge {
  from: string;
  to: string;
  /** The key that declares it: `next`, `on_no`, `route._`, … */
  key: string;
}

/** Every transition the loop declares to a known state (`$current` resolved; templates skipped). */
export function edges(def: LoopDefinition): Edge[] {
  const out: Edge[] = [];
  for (const [from, state] of Object.entries(def.states)) {
    for (const { key, target } of declaredTargets(state)) {
      const to = target === CURRENT ? from : target;
      if (to in def.states) out.push({ from, to, key });
    }
  }
  return out;
}

/** True when some transition of the loop is a `${…}` template (its target is known only at run time). */
export function hasDynamicTargets(def: LoopDefinition): boolean {
  return Object.values(def.states).some((s) => declaredTargets(s).some((t) => t.target.includes('${')));
}

/**
 * The verdict a routing key is taken on (`on_no` → `no`, `route.yes` → `yes`), `_` for a route
 * table's default, or undefined for keys that are not verdict routes (`next`, `on_budget`, …).
 */
export function verdictOf(key: string): string | undefined {
  if (key.startsWith('route.')) return key.slice('route.'.length);
  if (key.startsWith('on_') && !NOT_VERDICT_ROUTES.includes(key)) return key.slice('on_'.length);
  return undefined;
}

const FAILURE_VERDICTS = new Set(['no', 'failure', 'error', '_error']);

/** True when a routing key handles the state's failing answer or its error (`on_no`, `route._`, `on_error`, …). */
export function isFailureRoute(state: StateConfig, key: string): boolean {
  const verdict = verdictOf(key);
  if (verdict === undefined) return false;
  if (FAILURE_VERDICTS.has(verdict)) return true;
  // A route table's default takes `no` and `error` unless the table names them.
  return (
    verdict === '_' && state.route !== undefined && (state.route.no === undefined || state.route.error === undefined)
  );
}

/** The graph's strongly connected components that hold a cycle (two states or more, or a self-loop). */
export function cycles(def: LoopDefinition, all: readonly Edge[] = edges(def)): string[][] {
  const names = Object.keys(def.states);
  const next = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const e of all) next.get(e.from)!.push(e.to);
  // Tarjan's algorithm, iterative (a loop may have many states).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  for (const root of names) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; i: number }> = [{ node: root, i: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const succ = next.get(top.node)!;
      if (top.i < succ.length) {
        const w = succ[top.i++]!;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.node, Math.min(low.get(top.node)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== top.node);
      const selfLoop = next.get(top.node)!.includes(top.node);
      if (component.length > 1 || selfLoop) out.push(component.reverse());
    }
  }
  return out;
}

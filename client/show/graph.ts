/**
 * The loop as a graph for `ll-loop show`: each state's effective exits (what the engine would
 * actually follow), the main path, a display order and the back edges. Pure and deterministic:
 * the same definition always gives the same graph, whatever the renderer.
 */
import { CURRENT, declaredTargets, NOT_VERDICT_ROUTES } from '../../fsm/routing.js';
import type { HumanAsk, LoopDefinition, StateConfig } from '../../fsm/schema.js';
import { humanAsk, isHumanState } from '../../fsm/human.js';

/** The loops a parallel state's branches run, in order. */
function branchLoops(state: StateConfig): string[] {
  return (state.parallel?.branches ?? []).map((b) => (typeof b === 'string' ? b : b.loop));
}

/** What a parallel state runs: `fix-one × each item (max 4, worktree, fail_fast)` or `lint | test | typecheck (max 4)`. */
export function fanOutText(state: StateConfig): string | undefined {
  const parallel = state.parallel;
  if (parallel === undefined) return undefined;
  const how = [
    `max ${parallel.max_workers}`,
    ...(parallel.isolation === 'worktree' ? ['worktree'] : []),
    ...(parallel.fail_mode === 'fail_fast' ? ['fail_fast'] : []),
  ].join(', ');
  const what = parallel.branches !== undefined ? branchLoops(state).join(' | ') : `${parallel.loop ?? '?'} × each item`;
  return `${what} (${how})`;
}

/** Where an exit goes: a state (`$current` resolves to the state itself), or a `${…}` template. */
type Target = { kind: 'state'; name: string; viaCurrent: boolean } | { kind: 'dynamic'; template: string };

/** One exit of a state: every verdict label that leads to the same target, in declared order. */
export interface Exit {
  labels: string[];
  target: Target;
  /** The target is on the depth-first path to this state (or is the state): the exit closes a loop. */
  back: boolean;
}

export interface StateNode {
  name: string;
  config: StateConfig;
  initial: boolean;
  terminal: boolean;
  failure: boolean;
  /** The child loop of a sub-loop state (`loop: <child>`). */
  subLoop?: string;
  /** A human state: what it asks a person (`approval`, `choice`, `text`, `json`). */
  human?: HumanAsk;
  /** A parallel state: the loops it fans out to (one per branch, or the items' loop), joined before its exits. */
  fanOut?: { loops: string[]; items: boolean; text: string };
  /** No path from the initial state leads here. */
  unreachable: boolean;
  exits: Exit[];
}

export interface LoopGraph {
  /**
   * Display order: the main path; then the other reachable states by first mention, those that
   * continue the loop before the terminal ones (so side paths read as flows and the ends come
   * last); then unreachable states.
   */
  order: string[];
  /** initial → … → the first terminal found following next/yes/success/target exits first. */
  mainPath: string[];
  /** The main path ends at a terminal state that is not marked `failure: true`. */
  mainPathComplete: boolean;
  nodes: Record<string, StateNode>;
}

/** The label the route-table key `_` is shown with; `_error` is shown as `error`. */
const DEFAULT_LABEL = 'otherwise';

/** Labels the main path prefers, best first: the unconditional and the "it worked" verdicts. */
const PREFERRED = ['next', 'yes', 'success', 'target'];

function routeLabel(verdict: string): string {
  if (verdict === '_') return DEFAULT_LABEL;
  if (verdict === '_error') return 'error';
  return verdict;
}

/**
 * The transitions the engine can take from `state`, as (label, target as written), in declared
 * order. Mirrors fsm/step.ts: a terminal state ends the run (or restarts in maintain mode); `next`
 * is unconditional, with `on_error` for a failed action; a `route:` table replaces the shorthand;
 * `on_budget` applies whichever does (a spent budget, fsm/run/budget.ts).
 */
export function stateTransitions(def: LoopDefinition, state: StateConfig): Array<{ label: string; target: string }> {
  if (state.terminal) {
    return def.maintain ? [{ label: 'maintain', target: state.on_maintain ?? def.initial }] : [];
  }
  return [
    ...verdictTransitions(state),
    ...(state.on_budget === undefined ? [] : [{ label: 'budget', target: state.on_budget }]),
  ];
}

/** `next`, the route table or the shorthand routes; `on_budget` (taken whichever applies) is added by the caller. */
function verdictTransitions(state: StateConfig): Array<{ label: string; target: string }> {
  const declared = declaredTargets(state);
  if (state.next !== undefined) {
    return declared
      .filter((t) => t.key === 'next' || t.key === 'on_error')
      .map((t) => ({ label: t.key === 'next' ? 'next' : 'error', target: t.target }));
  }
  if (state.route) {
    return declared
      .filter((t) => t.key.startsWith('route.'))
      .map((t) => ({ label: routeLabel(t.key.slice('route.'.length)), target: t.target }));
  }
  return declared
    .filter((t) => t.key.startsWith('on_') && !NOT_VERDICT_ROUTES.includes(t.key))
    .map((t) => ({ label: t.key.slice('on_'.length), target: t.target }));
}

function parseTarget(from: string, target: string): Target {
  if (target === CURRENT) return { kind: 'state', name: from, viaCurrent: true };
  if (target.includes('${')) return { kind: 'dynamic', template: target };
  return { kind: 'state', name: target, viaCurrent: false };
}

/** A key identifying a target, for grouping labels that go to the same place. */
function targetKey(target: Target): string {
  return target.kind === 'state' ? `state:${target.name}:${target.viaCurrent}` : `dynamic:${target.template}`;
}

function exitsOf(def: LoopDefinition, name: string, state: StateConfig): Exit[] {
  const exits: Exit[] = [];
  const byKey = new Map<string, Exit>();
  for (const { label, target } of stateTransitions(def, state)) {
    const parsed = parseTarget(name, target);
    const key = targetKey(parsed);
    const existing = byKey.get(key);
    if (existing) {
      if (!existing.labels.includes(label)) existing.labels.push(label);
      continue;
    }
    const exit: Exit = { labels: [label], target: parsed, back: false };
    byKey.set(key, exit);
    exits.push(exit);
  }
  return exits;
}

/** The state an exit leads to, when it is a known state. */
function stateTarget(nodes: Record<string, StateNode>, exit: Exit): string | undefined {
  return exit.target.kind === 'state' && Object.hasOwn(nodes, exit.target.name) ? exit.target.name : undefined;
}

function rank(exit: Exit): number {
  const preferred = Math.min(
    ...exit.labels.map((l) => (PREFERRED.includes(l) ? PREFERRED.indexOf(l) : PREFERRED.length)),
  );
  // Error routes last: they are the way out when something broke, not the path the author meant.
  return exit.labels.every((l) => l === 'error') ? PREFERRED.length + 1 : preferred;
}

/** Exits in the order the main path tries them (stable: ties keep declared order). */
function byPreference(exits: readonly Exit[]): Exit[] {
  return exits
    .map((exit, i) => ({ exit, i, r: rank(exit) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.exit);
}

/**
 * A path from `start` to the first state satisfying `goal`, depth first, trying preferred exits
 * first. Each state is explored once, so this is linear in the size of the graph.
 */
function findPath(
  nodes: Record<string, StateNode>,
  start: string,
  goal: (n: StateNode) => boolean,
): string[] | undefined {
  const seen = new Set<string>([start]);
  const stack: Array<{ name: string; exits: Exit[]; next: number }> = [
    { name: start, exits: byPreference(nodes[start]!.exits), next: 0 },
  ];
  if (goal(nodes[start]!)) return [start];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const exit = top.exits[top.next];
    top.next += 1;
    if (exit === undefined) {
      stack.pop();
      continue;
    }
    const to = stateTarget(nodes, exit);
    if (to === undefined || seen.has(to)) continue;
    seen.add(to);
    if (goal(nodes[to]!)) return [...stack.map((s) => s.name), to];
    stack.push({ name: to, exits: byPreference(nodes[to]!.exits), next: 0 });
  }
  return undefined;
}

function mainPathOf(nodes: Record<string, StateNode>, initial: string): { path: string[]; complete: boolean } {
  if (!Object.hasOwn(nodes, initial)) return { path: [], complete: false };
  const success = findPath(nodes, initial, (n) => n.terminal && !n.failure);
  if (success) return { path: success, complete: true };
  return { path: findPath(nodes, initial, (n) => n.terminal) ?? [initial], complete: false };
}

/** The main path, then every state reached from what is already listed (first mention first). */
function reachableOrder(nodes: Record<string, StateNode>, mainPath: readonly string[]): string[] {
  const order = [...mainPath];
  const listed = new Set(order);
  for (let i = 0; i < order.length; i += 1) {
    for (const exit of nodes[order[i]!]!.exits) {
      const to = stateTarget(nodes, exit);
      if (to !== undefined && !listed.has(to)) {
        listed.add(to);
        order.push(to);
      }
    }
  }
  return order;
}

/**
 * Mark exits that close a loop: depth first from the initial state (walking the main path first,
 * so its edges are never back edges), then from each state not yet visited, in display order.
 */
function markBackEdges(nodes: Record<string, StateNode>, order: readonly string[], mainPath: readonly string[]): void {
  const visited = new Set<string>();
  const onStack = new Set<string>();
  const childOrder = (name: string): Exit[] => {
    const exits = nodes[name]!.exits;
    const at = mainPath.indexOf(name);
    const spineNext = at >= 0 ? mainPath[at + 1] : undefined;
    const spine = exits.filter(
      (e) =>
        spineNext !== undefined &&
        stateTarget(nodes, e) === spineNext &&
        e.target.kind === 'state' &&
        !e.target.viaCurrent,
    );
    return [...spine, ...exits.filter((e) => !spine.includes(e))];
  };
  for (const root of order) {
    if (visited.has(root)) continue;
    const stack: Array<{ name: string; exits: Exit[]; next: number }> = [
      { name: root, exits: childOrder(root), next: 0 },
    ];
    visited.add(root);
    onStack.add(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const exit = top.exits[top.next];
      top.next += 1;
      if (exit === undefined) {
        onStack.delete(top.name);
        stack.pop();
        continue;
      }
      const to = stateTarget(nodes, exit);
      if (to === undefined) continue;
      if (onStack.has(to)) exit.back = true;
      if (visited.has(to)) continue;
      visited.add(to);
      onStack.add(to);
      stack.push({ name: to, exits: childOrder(to), next: 0 });
    }
  }
}

function fanOutOf(config: StateConfig): Pick<StateNode, 'fanOut'> {
  const text = fanOutText(config);
  if (text === undefined) return {};
  const items = config.parallel?.branches === undefined;
  return { fanOut: { loops: items ? [config.parallel?.loop ?? '?'] : branchLoops(config), items, text } };
}

/** Build the graph of a loop definition (validated, or at least schema-shaped). */
export function buildGraph(def: LoopDefinition): LoopGraph {
  const nodes: Record<string, StateNode> = {};
  for (const [name, config] of Object.entries(def.states)) {
    nodes[name] = {
      name,
      config,
      initial: name === def.initial,
      terminal: config.terminal === true,
      failure: config.terminal === true && config.failure === true,
      ...(typeof config.loop === 'string' ? { subLoop: config.loop } : {}),
      ...(isHumanState(config) ? { human: humanAsk(config) } : {}),
      ...fanOutOf(config),
      unreachable: false,
      exits: exitsOf(def, name, config),
    };
  }
  const { path: mainPath, complete } = mainPathOf(nodes, def.initial);
  const reachable = reachableOrder(nodes, mainPath);
  const reached = new Set(reachable);
  const unreachable = Object.keys(nodes).filter((n) => !reached.has(n));
  for (const name of unreachable) nodes[name]!.unreachable = true;
  const side = reachable.slice(mainPath.length);
  const order = [
    ...mainPath,
    ...side.filter((n) => !nodes[n]!.terminal),
    ...side.filter((n) => nodes[n]!.terminal),
    ...unreachable,
  ];
  markBackEdges(nodes, order, mainPath);
  return { order, mainPath, mainPathComplete: complete, nodes };
}

/** `--dry-run`: the execution plan of a loop, as data, without running anything. */
import { actionKind, actionTimeout } from '../action.js';
import { effectiveEvaluator } from '../evaluate-state.js';
import { declaredTargets } from '../routing.js';
import type { LoopDefinition } from '../schema.js';

interface PlannedState {
  name: string;
  terminal: boolean;
  failure: boolean;
  action?: { kind: 'shell' | 'prompt' | 'mcp'; text: string; timeout_s: number };
  /** A sub-loop state: the child loop, how it gets its values, and its `timeout:` if any. */
  subloop?: { loop: string; passthrough: boolean; with?: Record<string, unknown>; timeout_s?: number };
  evaluator?: string;
  transitions: Array<{ on: string; to: string }>;
}

export interface Plan {
  loop: string;
  initial: string;
  max_iterations: number;
  timeout_s?: number;
  backoff_s?: number;
  llm_enabled: boolean;
  context: Record<string, unknown>;
  states: PlannedState[];
}

/** States in breadth-first order from `initial`, then any unreachable ones. */
function orderedStates(def: LoopDefinition): string[] {
  const order: string[] = [];
  const queue = def.initial in def.states ? [def.initial] : [];
  const seen = new Set(queue);
  while (queue.length) {
    const name = queue.shift()!;
    order.push(name);
    for (const { target } of declaredTargets(def.states[name]!)) {
      if (target in def.states && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return [...order, ...Object.keys(def.states).filter((n) => !seen.has(n))];
}

export function planOf(def: LoopDefinition): Plan {
  const states = orderedStates(def).map((name): PlannedState => {
    const state = def.states[name]!;
    const planned: PlannedState = {
      name,
      terminal: state.terminal,
      failure: state.failure,
      transitions: declaredTargets(state).map(({ key, target }) => ({
        on: key.replace(/^route\./, '').replace(/^on_/, ''),
        to: target,
      })),
    };
    if (state.action !== undefined)
      planned.action = { kind: actionKind(state), text: state.action, timeout_s: actionTimeout(def, state) };
    if (state.loop !== undefined) {
      planned.subloop = {
        loop: state.loop,
        passthrough: state.context_passthrough === true,
        ...(state.with ? { with: state.with } : {}),
        ...(state.timeout !== undefined ? { timeout_s: state.timeout } : {}),
      };
    }
    if (!state.terminal && state.next === undefined && (state.action !== undefined || state.evaluate))
      planned.evaluator = effectiveEvaluator(def, state).type;
    return planned;
  });
  const plan: Plan = {
    loop: def.name,
    initial: def.initial,
    max_iterations: def.max_iterations,
    llm_enabled: def.llm.enabled,
    context: def.context,
    states,
  };
  if (def.timeout !== undefined) plan.timeout_s = def.timeout;
  if (def.backoff !== undefined) plan.backoff_s = def.backoff;
  return plan;
}

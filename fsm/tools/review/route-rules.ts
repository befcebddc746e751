/**
 * Review rules about the state graph: a generator-evaluator back-route (seed 001), a cycle no
 * route leaves, and states reached only through routes their source never takes. Pure.
 *
 * `validate` already reports states with no route into them at all; these rules report what it
 * accepts.
 */
import { effectiveEvaluator } from '../../evaluate-state.js';
import { isHumanState } from '../../human.js';
import type { LoopDefinition, StateConfig } from '../../schema.js';
import { stateVerdicts } from '../../verdicts.js';
import type { Finding, ReviewRule } from './finding.js';
import { cycles, edges, hasDynamicTargets, isFailureRoute, verdictOf, type Edge } from './graph.js';

const quote = (names: readonly string[]): string => names.map((n) => `"${n}"`).join(', ');

/** Evaluating states whose failure goes to a state that goes straight back to them, with the keys that do it. */
function backRoutes(def: LoopDefinition): Array<{ evaluator: string; generator: string; keys: string[] }> {
  const out: Array<{ evaluator: string; generator: string; keys: string[] }> = [];
  for (const e of edges(def)) {
    const from = def.states[e.from]!;
    const to = def.states[e.to]!;
    if (e.from === e.to || from.next !== undefined || from.terminal) continue;
    if (to.next !== e.from || to.action === undefined || !isFailureRoute(from, e.key)) continue;
    const known = out.find((b) => b.evaluator === e.from && b.generator === e.to);
    if (known) known.keys.push(e.key);
    else out.push({ evaluator: e.from, generator: e.to, keys: [e.key] });
  }
  return out;
}

export const generatorBackRoute: ReviewRule = {
  id: 'generator-evaluator-back-route',
  severity: 'error',
  summary:
    "an evaluating state routes its failure or error back to the state that generated what it judges (seed 001's rule)",
  check(def) {
    return backRoutes(def).map(({ evaluator, generator, keys }) => ({
      rule: this.id,
      severity: this.severity,
      state: evaluator,
      message: `${keys.join(' and ')} send${keys.length > 1 ? '' : 's'} a failed or broken check back to "${generator}", whose next: returns here at once: when the check itself cannot pass (its tool is missing, it judges the wrong thing) the loop regenerates until max_iterations (${def.max_iterations}) with nothing to show`,
      fix: `route ${keys.join(' and ')} forward: to a state that bounds the attempts (an output_numeric check of \${state.iteration} against a budget, whose on_no is a failure terminal) or that evaluates another way, not back to "${generator}"`,
    }));
  },
};

/** Edges that leave `component`. */
function exits(component: ReadonlySet<string>, all: readonly Edge[]): Edge[] {
  return all.filter((e) => component.has(e.from) && !component.has(e.to));
}

export const unboundedCycle: ReviewRule = {
  id: 'unbounded-cycle',
  severity: 'error',
  summary: 'a cycle of states that no route leaves and that holds no terminal state: only the limits end it',
  check(def) {
    // A `${…}` target may leave any cycle; a cap handler is the author's planned way out.
    if (hasDynamicTargets(def) || def.on_max_iterations !== undefined || def.on_max_steps !== undefined) return [];
    const all = edges(def);
    const out: Finding[] = [];
    for (const component of cycles(def, all)) {
      const set = new Set(component);
      if (component.some((s) => def.states[s]!.terminal) || exits(set, all).length > 0) continue;
      const first = Object.keys(def.states).find((s) => set.has(s))!;
      out.push({
        rule: this.id,
        severity: this.severity,
        state: first,
        message: `${component.length > 1 ? `states ${quote(component)} cycle` : `"${first}" repeats itself`} with no route out: the run can only end at max_iterations (${def.max_iterations}), as a limit, never in a terminal state`,
        fix: `give one of ${quote(component)} a route out to a terminal state, e.g. a budget check (evaluate: output_numeric of \${state.iteration}, operator: le, target: N) whose on_no is a failure terminal`,
      });
    }
    return out;
  },
};

/** Route keys that name an outcome of the runtime, not of the evaluator. */
const RUNTIME_OUTCOMES = new Set([
  'error',
  '_error',
  '_',
  'retry_exhausted',
  'rate_limit_exhausted',
  'partial',
  'timeout',
  'max_steps',
  'max_iterations',
  'handoff',
]);
const ALIASES: Record<string, string> = { success: 'yes', failure: 'no', yes: 'success', no: 'failure' };

/** True when `key` of `state` routes a verdict its evaluator never gives. */
function neverTaken(def: LoopDefinition, state: StateConfig, key: string): boolean {
  const verdict = verdictOf(key);
  if (verdict === undefined || RUNTIME_OUTCOMES.has(verdict)) return false;
  // Sub-loops, fan-outs and human states answer in their own words (validated with them).
  if (state.loop !== undefined || state.parallel !== undefined || isHumanState(state)) return false;
  if (effectiveEvaluator(def, state).type === 'classify') return false;
  const set = stateVerdicts(def, state);
  if (set === undefined) return false;
  return !set.verdicts.includes(verdict) && !set.verdicts.includes(ALIASES[verdict] ?? '');
}

function reachable(def: LoopDefinition, all: readonly Edge[]): Set<string> {
  const starts = [def.initial, def.on_max_steps, def.on_max_iterations].filter(
    (s): s is string => s !== undefined && s in def.states,
  );
  const seen = new Set(starts);
  const queue = [...starts];
  while (queue.length) {
    const from = queue.shift()!;
    for (const e of all) if (e.from === from && !seen.has(e.to)) (seen.add(e.to), queue.push(e.to));
  }
  return seen;
}

export const unreachableState: ReviewRule = {
  id: 'unreachable-state',
  severity: 'warning',
  summary: "a state reached only through routes for verdicts their state's evaluator never gives",
  check(def) {
    if (hasDynamicTargets(def) || !(def.initial in def.states)) return [];
    const all = edges(def);
    const live = all.filter((e) => !neverTaken(def, def.states[e.from]!, e.key));
    const declared = reachable(def, all);
    const taken = reachable(def, live);
    return Object.keys(def.states)
      .filter((s) => declared.has(s) && !taken.has(s))
      .map((s) => {
        const via = all.filter((e) => e.to === s && !live.includes(e) && taken.has(e.from));
        const how = via.map(
          (e) =>
            `${e.from}.${e.key} (${effectiveEvaluator(def, def.states[e.from]!).type} never answers "${verdictOf(e.key)}")`,
        );
        return {
          rule: this.id,
          severity: this.severity,
          state: s,
          message: `never entered: the only routes here are ${how.join(', ') || 'from states that are never entered'}`,
          fix: `route a verdict the evaluator gives to "${s}" (or change the evaluator), or delete the state`,
        };
      });
  },
};

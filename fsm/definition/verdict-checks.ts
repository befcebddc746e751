/**
 * Validation warnings about what a state answers at run time: verdicts its evaluator can produce
 * that nothing routes (the run would end with "no valid transition for verdict …"), and a
 * convergence `previous:` that reads something other than the state's last measurement (its stall
 * detection then compares against the wrong value). Pure.
 */
import { warning, type Diagnostic } from '../diagnostics.js';
import { effectiveEvaluator } from '../evaluate-state.js';
import { declaredTargets, unroutedVerdicts } from '../routing.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import { templateRefs } from '../template.js';
import { stateVerdicts } from '../verdicts.js';
import { isHumanState } from '../human.js';

function quoteAll(verdicts: readonly string[]): string {
  return verdicts.map((v) => `"${v}"`).join(', ');
}

function checkRoutes(def: LoopDefinition, name: string, state: StateConfig, out: Diagnostic[]): void {
  // A human state's answers are checked with its other fields (human-checks.ts): on_edit and on_timeout are optional.
  if (isHumanState(state)) return;
  const set = stateVerdicts(def, state);
  if (!set) return;
  const missing = unroutedVerdicts(state, set.verdicts);
  if (!missing.length) return;
  const type = effectiveEvaluator(def, state).type;
  // A parallel state has no evaluator: it routes on the join of its child runs.
  const what =
    state.loop !== undefined
      ? 'its sub-loop'
      : state.parallel !== undefined
        ? 'the join of its items (yes: all succeeded, no: none or, without on_partial, some)'
        : `its evaluator (${type}${state.evaluate ? '' : ', the default here'})`;
  const fix = state.route
    ? `add ${missing.map((v) => `${v}: <state>`).join(', ')} to route: (or _: <state> as a default)`
    : `add ${missing.map((v) => `on_${v}: <state>`).join(', ')} (or a route: table with _: <state> as a default)`;
  out.push(
    warning(
      ['states', name, ...(state.route ? ['route'] : [])],
      `${what} can answer ${quoteAll(missing)}, which no route handles: the run would end with "no valid transition"`,
      fix,
    ),
  );
}

/** States whose routes (or `initial`) lead into `name`, other than `name` itself. */
function otherPredecessors(def: LoopDefinition, name: string): string[] {
  return Object.entries(def.states)
    .filter(([from, s]) => from !== name && declaredTargets(s).some((t) => t.target === name))
    .map(([from]) => from);
}

function checkPrevious(def: LoopDefinition, name: string, state: StateConfig, out: Diagnostic[]): void {
  const evaluate = state.evaluate;
  if (evaluate?.type !== 'convergence' || evaluate.previous === undefined) return;
  let refs;
  try {
    refs = templateRefs(evaluate.previous);
  } catch {
    return; // a syntax error is reported with the templates
  }
  const path = ['states', name, 'evaluate', 'previous'];
  const fix = 'remove previous: — without it convergence compares with the value this state measured last time';
  for (const ref of refs) {
    if (ref.namespace === 'prev') {
      const others = otherPredecessors(def, name);
      if (others.length) {
        out.push(
          warning(
            path,
            `${ref.raw} is the output of the state run before this one (${others.map((s) => `"${s}"`).join(', ')}), not this state's last measurement, so progress and stall compare against the wrong value`,
            fix,
          ),
        );
        return;
      }
    } else if (ref.namespace === 'captured' && state.capture !== undefined && ref.path[0] === state.capture) {
      out.push(
        warning(
          path,
          `${ref.raw} is this state's own capture, which already holds the new measurement when it is evaluated: it never improves on itself, so the verdict is never progress`,
          fix,
        ),
      );
      return;
    }
  }
}

/** The warnings above for every state of `def`. */
export function verdictWarnings(def: LoopDefinition): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [name, state] of Object.entries(def.states)) {
    checkRoutes(def, name, state, out);
    checkPrevious(def, name, state, out);
  }
  return out;
}

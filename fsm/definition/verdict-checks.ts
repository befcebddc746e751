/**
 * Validation warnings about what a state answers at run time: verdicts its evaluator can produce
 * that nothing routes (the run would end with "no valid transition for verdict …"), routes for a
 * verdict it never answers (`on_sucess:`, a typo, is a route nothing takes), and a
 * convergence `previous:` that reads something other than the state's last measurement (its stall
 * detection then compares against the wrong value). Pure.
 */
import { warning, type Diagnostic } from '../diagnostics.js';
import { effectiveEvaluator } from '../evaluate-state.js';
import { declaredTargets, NOT_VERDICT_ROUTES, unroutedVerdicts, VERDICT_ALIASES } from '../routing.js';
import { STATE_KEYS, type LoopDefinition, type StateConfig } from '../schema.js';
import { closest } from '../suggest.js';
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

/** Route keys that are not verdicts: a route table's default and error entries. */
const TABLE_SPECIALS = new Set(['_', '_error', 'error']);

/**
 * Routes no verdict takes: an `on_<word>` shorthand of the state's own making, or a `route:` key,
 * whose word the state's evaluator never answers. Only for an evaluator's known verdicts (not a
 * sub-loop, a fan-out, a human state or `classify`, whose words are the loop's own).
 */
function checkDeadRoutes(def: LoopDefinition, name: string, state: StateConfig, out: Diagnostic[]): void {
  if (isHumanState(state) || state.loop !== undefined || state.parallel !== undefined) return;
  const set = stateVerdicts(def, state);
  if (!set) return;
  const answers = new Set(['error', ...set.verdicts]);
  for (const v of set.verdicts) if (VERDICT_ALIASES[v] !== undefined) answers.add(VERDICT_ALIASES[v]);
  const type = effectiveEvaluator(def, state).type;
  const said = `its evaluator (${type}) answers only ${quoteAll([...answers])}`;
  const shorthand = Object.keys(state).filter(
    (k) => k.startsWith('on_') && !STATE_KEYS.includes(k) && !NOT_VERDICT_ROUTES.includes(k),
  );
  for (const key of shorthand) {
    const verdict = key.slice('on_'.length);
    if (answers.has(verdict)) continue;
    const known = [...[...answers].map((v) => `on_${v}`), ...STATE_KEYS.filter((k) => k.startsWith('on_'))];
    const hit = closest(key, known);
    out.push(
      warning(
        ['states', name, key],
        `${key} routes a verdict "${verdict}" that no run gives: ${said}`,
        hit ? `did you mean ${hit}:? rename it` : `route one of those verdicts, or remove ${key}`,
      ),
    );
  }
  for (const key of Object.keys(state.route ?? {})) {
    if (TABLE_SPECIALS.has(key) || answers.has(key)) continue;
    const hit = closest(key, [...answers, '_']);
    out.push(
      warning(
        ['states', name, 'route', key],
        `route: ${key} is a verdict that no run gives: ${said}`,
        hit
          ? `did you mean ${hit}:? rename it`
          : `route one of those verdicts (or _: <state> as a default), or remove ${key}`,
      ),
    );
  }
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
    checkDeadRoutes(def, name, state, out);
    checkPrevious(def, name, state, out);
  }
  return out;
}

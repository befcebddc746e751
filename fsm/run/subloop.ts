/**
 * Sub-loop states (`loop: <name>`): what the child gets, and how its outcome is judged. Pure.
 *
 * The child's outcome is the state's verdict (docs/loop-format.md "Sub-loops"):
 * - `yes` (on_yes / on_success): it ended in a terminal state not marked `failure: true`;
 * - `no` (on_no / on_failure): it ended in a `failure: true` terminal, or by max_iterations,
 *   max_steps, its own timeout or its budget — it gave up without succeeding;
 * - `error` (on_error): it could not run or ended with an error (or was cancelled on its own).
 */
import { interpolate, type InterpolationScope } from '../interpolate.js';
import { bindParameters } from '../definition/parameters.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import { templateRefs } from '../template.js';
import type { ActionResult, BudgetLimits, CapturedValue, ExecutionResult, RunLoopInput } from '../types.js';

/** Namespaces whose values come from what the run printed, not from the loop's author. */
const RUNTIME_DATA = new Set(['captured', 'prev', 'result']);

/** Whether `template` carries run-time data (directly or through a data-bound context key). */
export function carriesData(template: string, dataContext: readonly string[]): boolean {
  return templateRefs(template).some(
    (ref) =>
      RUNTIME_DATA.has(ref.namespace) || (ref.namespace === 'context' && dataContext.includes(ref.path[0] ?? '')),
  );
}

/** The child's input for sub-loop state `state`. Throws InterpolationError for a bad reference. */
export function subloopInput(
  state: StateConfig & { loop: string },
  name: string,
  step: number,
  scope: InterpolationScope,
): RunLoopInput {
  const dataContext = scope.dataContext ?? [];
  const input: RunLoopInput = { state: name, step, loop: interpolate(state.loop, scope).trim() };
  // Only an explicit `timeout:` bounds a child: `default_timeout` is about actions, and a child's
  // actions already have their own.
  if (state.timeout !== undefined) input.timeout_s = state.timeout;
  if (state.context_passthrough) {
    input.passthrough = { context: scope.context, captured: scope.captured, dataContext: [...dataContext] };
  } else if (state.with) {
    const values: Record<string, unknown> = {};
    const tainted: string[] = [];
    for (const [key, value] of Object.entries(state.with)) {
      if (typeof value !== 'string') {
        values[key] = value;
        continue;
      }
      values[key] = interpolate(value, scope);
      if (carriesData(value, dataContext)) tainted.push(key);
    }
    input.bindings = { values, dataContext: tainted };
  }
  return input;
}

/**
 * Why a child stopped by its state's `timeout:` ended, as the run records it: added to the child's
 * (cancelled) result, or, when the child never reported one, the whole error. The workflow and the
 * history rebuilder (client/event-rebuilder.ts) both use these, so rebuilt events match live ones.
 */
export function subloopTimeoutError(seconds: number): string {
  return `the state's timeout of ${seconds}s ran out; the sub-loop was stopped`;
}

export function subloopTimeoutFailure(loop: string, seconds: number): string {
  return `sub-loop "${loop}" failed: ${subloopTimeoutError(seconds)}`;
}

/** The verdict a child's result gives its sub-loop state. */
export function subloopVerdict(result: ExecutionResult): 'yes' | 'no' | 'error' {
  if (result.terminated_by === 'terminal') return result.failure ? 'no' : 'yes';
  if (result.terminated_by === 'error' || result.terminated_by === 'cancelled') return 'error';
  return 'no';
}

const EXIT_BY_VERDICT = { yes: 0, no: 1, error: 2 } as const;

/**
 * The child's outcome in the shape of an action result, for `${prev.*}` and `capture:`: output is
 * the child's final state, exit code 0 / 1 / 2 for yes / no / error, stderr its error if any.
 */
export function subloopAsAction(result: ExecutionResult): ActionResult {
  return {
    output: result.final_state,
    stderr: result.error ?? '',
    exit_code: EXIT_BY_VERDICT[subloopVerdict(result)],
    duration_ms: result.duration_ms,
  };
}

/** What `${result.*}` shows after a sub-loop state. */
export function subloopDetails(loop: string, result: ExecutionResult): Record<string, unknown> {
  return {
    loop,
    final_state: result.final_state,
    terminated_by: result.terminated_by,
    iterations: result.iterations,
    steps: result.steps,
    ...(result.error === undefined ? {} : { error: result.error }),
  };
}

/** A child run's starting point: its definition with the bound context, and what it inherits. */
export interface ChildStart {
  definition: LoopDefinition;
  captured: Record<string, CapturedValue>;
  dataContext: string[];
  /** What is left of the parent's loop budget (parents with a budget only). */
  budget?: BudgetLimits;
}

/**
 * The child's definition for this run: `with:` values checked against its `parameters:` (types,
 * unknown names, required ones) and bound into its context, or the parent's context and captured
 * values passed through. Returns the reason when the bindings do not fit the child.
 */
export function childStart(
  def: LoopDefinition,
  input: Pick<RunLoopInput, 'passthrough' | 'bindings' | 'budget'>,
): ChildStart | { error: string } {
  const start = childStartOf(def, input);
  return 'error' in start || input.budget === undefined ? start : { ...start, budget: input.budget };
}

function childStartOf(
  def: LoopDefinition,
  input: Pick<RunLoopInput, 'passthrough' | 'bindings'>,
): ChildStart | { error: string } {
  const given = input.bindings?.values ?? input.passthrough?.context ?? {};
  const bound = bindParameters(def, given, { source: 'with', strict: input.bindings !== undefined, requireAll: true });
  if (bound.problems.length) return { error: bound.problems.map((p) => `${p.message} (${p.fix})`).join('; ') };
  if (input.passthrough) {
    const { context, captured, dataContext } = input.passthrough;
    return { definition: { ...def, context: { ...def.context, ...context, ...bound.values } }, captured, dataContext };
  }
  const dataContext = (input.bindings?.dataContext ?? []).filter((key) => key in bound.values);
  return { definition: { ...def, context: { ...def.context, ...bound.values } }, captured: {}, dataContext };
}

/**
 * A `loop:` state's child run ended: its result merged back (captured values, passthrough) and
 * judged like an action, or its failure (a state timeout, an unavailable definition) routed as
 * the `error` verdict.
 */
import { failureText, unavailableText } from './facts.js';
import { emit, stateOf, type Draft } from './draft.js';
import type { RunEvent } from './snapshot.js';
import {
  subloopAsAction,
  subloopDetails,
  subloopTimeoutError,
  subloopTimeoutFailure,
  subloopVerdict,
} from './subloop.js';
import { afterEvaluation, failState, routeTo } from './steps.js';
import { chargeSpend } from './on-budget.js';
import { subloopCapturesUnderName } from '../definition/template-checks.js';
import type { ActionResult, CapturedValue, ExecutionResult } from '../types.js';

/**
 * What a sub-loop state keeps under its own name: the child's captured values by their names
 * (`${captured.<state>.<name>.output}`), how the child ended (`terminated_by`), and, so that it
 * reads like any captured value, the state's own result (output = the child's final state).
 */
function underStateName(result: ExecutionResult, action: ActionResult): CapturedValue {
  const { output, stderr, exit_code, duration_ms } = action;
  const nested: Record<string, unknown> = { ...result.captured, output, stderr, exit_code, duration_ms };
  nested.terminated_by = result.terminated_by;
  return nested as unknown as CapturedValue;
}

/** The child loop ended: merge what it shares back, then judge and route like an action. */
function onSubloopDone(d: Draft, result: ExecutionResult): void {
  const state = stateOf(d);
  const verdict = subloopVerdict(result);
  const action = subloopAsAction(result);
  emit(d, 'subloop_complete', {
    state: d.snap.current,
    loop: result.loop,
    final_state: result.final_state,
    terminated_by: result.terminated_by,
    verdict,
    duration_ms: result.duration_ms,
    ...(result.error === undefined ? {} : { error: result.error }),
  });
  if (state.context_passthrough) d.snap.captured = { ...d.snap.captured, ...result.captured };
  // A passthrough child's own capture of that name, merged above, is left as it is.
  if (subloopCapturesUnderName(d.def, d.snap.current) && !Object.hasOwn(result.captured, d.snap.current)) {
    d.snap.captured = { ...d.snap.captured, [d.snap.current]: underStateName(result, action) };
  }
  if (state.capture) {
    const { output, stderr, exit_code, duration_ms } = action;
    d.snap.captured = { ...d.snap.captured, [state.capture]: { output, stderr, exit_code, duration_ms } };
  }
  // The child spent from this run's budget: charged to the run and to this state.
  if (chargeSpend(d, state, result.spent, action)) return;
  if (verdict === 'error') {
    const why = result.error ?? `it ended ${result.terminated_by} in state "${result.final_state}"`;
    return failState(d, state, `sub-loop "${result.loop}" failed: ${why}`, action);
  }
  if (state.next !== undefined) return routeTo(d, state, state.next, undefined, action);
  afterEvaluation(d, state, 'subloop', { verdict, details: subloopDetails(result.loop, result) }, action);
}

/** A subloop's end, judged: the verdict comes from the child's result, a timeout or a failure. */
export function onSubloopEvent(
  d: Draft,
  event: Extract<RunEvent, { type: 'subloop_done' | 'subloop_failed' | 'subloop_unavailable' }>,
): void {
  const input = runLoopTimeout(d);
  if (event.type === 'subloop_unavailable') return failState(d, stateOf(d), unavailableText(event.why));
  if (event.type === 'subloop_failed') {
    // The state's timeout stopped the child before it reported a result.
    if (event.timedOut && input !== undefined)
      return failState(d, stateOf(d), subloopTimeoutFailure(event.loop, input));
    return failState(d, stateOf(d), `sub-loop "${event.loop}" failed: ${failureText(event.failure)}`);
  }
  // A child stopped by the state's timeout records its own end as cancelled: say why.
  const result =
    event.timedOut && input !== undefined && event.result.terminated_by === 'cancelled'
      ? { ...event.result, error: subloopTimeoutError(input) }
      : event.result;
  onSubloopDone(d, result);
}

/** The `timeout:` (seconds) of the current sub-loop state, if it has one. */
function runLoopTimeout(d: Draft): number | undefined {
  return d.def.states[d.snap.current]?.timeout;
}

/**
 * The pure core's one entry point, after xstate's contract:
 * `transition(definition, snapshot, event) → { snapshot, events, effect }`.
 *
 * A run begins with the initial transition (`snapshot` null, a `start` event); every later
 * transition takes the running snapshot and a fact the runtime observed (an action's result, an
 * LLM's answer, a child run's end, a timer, a stop). Each returns exactly one effect for the
 * runtime to carry out — run an action, evaluate with an LLM, run a sub-loop, sleep, or finish —
 * and the events it emitted, numbered and timed by the core. No I/O, no clock: time arrives in
 * each event. Decided semantics (docs/loop-format.md):
 * - A pass starts at the initial state; entering a state already visited in the current pass
 *   starts the next pass. `max_iterations` caps passes, `max_steps` state executions.
 * - A terminal state's action runs (recorded, not evaluated), then the run ends.
 * - Failures to interpolate or evaluate are `error` verdicts, routed like any other.
 */
import { errorResult } from '../evaluate-state.js';
import { failureText, llmEvaluatorType, llmResult } from './facts.js';
import { begin } from './begin.js';
import { chomp, emit, endAsks, finish, stateOf, type Draft } from './draft.js';
import type { LoopDefinition } from '../schema.js';
import type { CoreEvent, RunEvent, RunningSnapshot, StartEvent, Transition } from './snapshot.js';
import type { ActionResult, CapturedValue, EvalResult } from '../types.js';
import type { TamperReport } from '../check-reports.js';
import type { StateConfig } from '../schema.js';
import { tamperFailure, tamperFindings, tamperPolicy } from '../tamper-guard.js';
import { compareDiffStall, DEFAULT_MAX_STALL } from '../evaluators/diff-stall.js';
import { afterEvaluation, decide, enter, execute, failState, retryIfFailed, runAction } from './steps.js';
import { onInvalidAnswer, onInvalidOutput } from './reask.js';
import { onSubloopEvent } from './on-subloop.js';
import { onParallelEvent } from './parallel.js';
import { onRateLimited, resumeAfterRateLimit } from './rate-limit.js';
import { actionKind } from '../action.js';
import { hasBudget } from './budget.js';
import { chargeAgentCall, llmUsage } from './on-budget.js';
import { continueHandoff, onStdoutSignal } from './on-signal.js';
import { recordSession } from './agent-session.js';
import { beforeEntering, release } from './control.js';
import { onHumanAnswered, onHumanTimeout } from './on-human.js';

/** States entered in one transition without any effect: past this the loop is spinning in place. */
const MAX_ENTRIES_PER_STEP = 100_000;

function onActionDone(d: Draft, result: ActionResult): void {
  const state = stateOf(d);
  d.snap.pending = null;
  emit(d, 'action_complete', {
    state: d.snap.current,
    exit_code: result.exit_code,
    duration_ms: result.duration_ms,
    ...(result.timed_out ? { timed_out: true } : {}),
    // Only an idle kill says so: every other action's event is as it was.
    ...(result.timeout_kind === 'idle' ? { timeout_kind: 'idle' as const } : {}),
    ...(result.signal ? { signal: result.signal } : {}),
    ...(result.log_file ? { log_file: result.log_file } : {}),
    ...(result.rate_limit ? { rate_limited: true } : {}),
  });
  // A rate limit is no answer: nothing is captured or judged; the call is made again after a pause.
  if (result.rate_limit !== undefined) return onRateLimited(d, 'action', result.rate_limit, null);
  delete d.snap.rateLimit;
  recordSession(d, state, result);
  const check = result.output_check;
  if (state.capture) {
    const { exit_code, duration_ms } = result;
    const value: CapturedValue = { output: chomp(result.output), stderr: chomp(result.stderr), exit_code, duration_ms };
    if (check !== undefined && 'value' in check) value.json = check.value;
    d.snap.captured = { ...d.snap.captured, [state.capture]: value };
  }
  // Under a budget an agent call spends its time even when its host CLI reports no usage (another
  // CLI than Claude Code), so max_agent_seconds holds for any; without one, only reports are kept.
  const timed = actionKind(state) === 'prompt' && result.error === undefined && hasBudget(d.def, d.snap, state);
  const usage = result.usage ?? (timed ? {} : undefined);
  if (chargeAgentCall(d, state, usage, result.duration_ms, result)) return;
  // What the action did to the test files is judged before what it printed (fsm/tamper-guard.ts).
  if (result.tamper !== undefined && onTamper(d, state, result, result.tamper)) return;
  // Found by the worker when the action asked (RunActionInput.detect_signals).
  if (result.stdout_signal !== undefined && onStdoutSignal(d, result.stdout_signal, result)) return;
  if (result.error !== undefined) {
    if (retryIfFailed(d, state, { kind: 'could_not_run' }, { exit_code: result.exit_code, error: result.error }))
      return;
    if (!state.terminal) return failState(d, state, result.error, result);
  } else if (retryIfFailed(d, state, { kind: 'exit', exitCode: result.exit_code }, { exit_code: result.exit_code }))
    return;
  if (check !== undefined && 'errors' in check && !state.terminal)
    return onInvalidOutput(d, state, result, check.errors);
  endAsks(d);
  decide(d, state, result);
}

/**
 * A guarded action's test files compared (fsm/tamper-guard.ts): a `tamper_guard` event names what
 * changed; true when the state fails for it (then it is routed as `error`, or the run ends).
 */
function onTamper(d: Draft, state: StateConfig, result: ActionResult, report: TamperReport): boolean {
  const policy = tamperPolicy(d.def, state);
  if (policy === undefined) return false;
  if (report.findings.length === 0 && report.error === undefined) return false;
  emit(d, 'tamper_guard', {
    state: d.snap.current,
    policy,
    findings: tamperFindings(report),
    ...(report.reverted?.length ? { reverted: report.reverted } : {}),
    ...(report.error !== undefined ? { error: report.error } : {}),
  });
  const failure = tamperFailure(policy, report);
  if (failure === undefined) return false;
  failState(d, state, failure, result);
  return true;
}

/** The diff_stall verdict for the worker's snapshot (remembered for the state's next pass), or its error. */
function diffStallResult(
  d: Draft,
  event: Extract<RunEvent, { type: 'diff_stat_done' | 'diff_stat_error' | 'diff_stat_failed' }>,
): EvalResult {
  const config = stateOf(d).evaluate;
  const maxStall = config?.type === 'diff_stall' ? config.max_stall : DEFAULT_MAX_STALL;
  if (event.type === 'diff_stat_error') return errorResult(event.error, { max_stall: maxStall });
  if (event.type === 'diff_stat_failed')
    return errorResult(`git diff --stat failed: ${failureText(event.failure)}`, { max_stall: maxStall });
  const name = d.snap.current;
  const { result, memory } = compareDiffStall(maxStall, d.snap.diffStats?.[name], event.stat);
  d.snap.diffStats = { ...d.snap.diffStats, [name]: memory };
  return result;
}

/** Feed one observed fact to a running loop. Never throws for run-time problems: they end the run with an error. */
function advance(d: Draft, event: RunEvent): void {
  switch (event.type) {
    case 'action_done':
      return onActionDone(d, event.result);
    case 'action_failed': {
      const state = stateOf(d);
      const error = `action could not run: ${failureText(event.failure)}`;
      if (!retryIfFailed(d, state, { kind: 'could_not_run' }, { error })) failState(d, state, error);
      return;
    }
    case 'subloop_done':
    case 'subloop_failed':
    case 'subloop_unavailable':
      return onSubloopEvent(d, event);
    case 'parallel_done':
    case 'parallel_unavailable':
      return onParallelEvent(d, event);
    case 'llm_rate_limited':
      return onRateLimited(d, 'llm', event.rate_limit, d.snap.pending);
    case 'llm_invalid':
      delete d.snap.rateLimit;
      if (chargeAgentCall(d, stateOf(d), event.usage, undefined, d.snap.pending)) return;
      return onInvalidAnswer(d, event.invalid);
    case 'llm_replied':
    case 'llm_error':
    case 'llm_failed':
    case 'llm_done': {
      // The action result waited for this evaluation only; nothing is pending any more.
      const action = d.snap.pending;
      d.snap.pending = null;
      endAsks(d);
      delete d.snap.rateLimit;
      if (chargeAgentCall(d, stateOf(d), llmUsage(event), undefined, action)) return;
      return afterEvaluation(
        d,
        stateOf(d),
        llmEvaluatorType(d.def, stateOf(d)),
        llmResult(d.def, stateOf(d), event),
        action,
      );
    }
    case 'diff_stat_done':
    case 'diff_stat_error':
    case 'diff_stat_failed': {
      const action = d.snap.pending;
      d.snap.pending = null;
      return afterEvaluation(d, stateOf(d), 'diff_stall', diffStallResult(d, event), action);
    }
    case 'sleep_done':
      if (d.snap.phase === 'maintain_delay') {
        const target = d.snap.current;
        d.snap.visited = [];
        d.goto = { name: target, newCycle: true };
      } else if (d.snap.phase === 'rate_limited') {
        resumeAfterRateLimit(d);
      } else if (d.snap.phase === 'retry_delay') {
        const state = stateOf(d);
        if (state.action !== undefined) runAction(d, state, state.action);
        else execute(d);
      } else execute(d);
      return;
    case 'handoff_resumed':
      return continueHandoff(d);
    case 'released':
      return release(d);
    case 'human_answered':
      return onHumanAnswered(d, event.reply, event.by, event.approvalEdit === true);
    case 'human_timeout':
      return onHumanTimeout(d);
    case 'timeout':
      return finish(d, 'timeout', `loop timeout of ${d.def.timeout ?? '?'}s reached in state "${d.snap.current}"`);
    case 'cancel':
      return finish(d, 'cancelled');
  }
}

/** The transition's typed output: the sealed snapshot with its one effect. */
function seal(d: Draft): Transition {
  const { phase, pending, outcome, ...data } = d.snap;
  const effect = d.effect;
  if (!effect) throw new Error(`internal: the transition in state "${d.snap.current}" decided no effect`);
  if (effect.type === 'finish')
    return {
      snapshot: { ...data, status: 'done', phase: 'done', outcome: outcome ?? effect.result },
      events: d.events,
      effect,
    };
  const running: RunningSnapshot =
    phase === 'llm' || phase === 'git_diff' || phase === 'rate_limited'
      ? { ...data, status: 'running', phase, pending }
      : { ...data, status: 'running', phase: phase === 'done' || phase === 'starting' ? 'action' : phase };
  return { snapshot: running, events: d.events, effect };
}

/** The first transition of a run. */
export function transition(def: LoopDefinition, snapshot: null, event: StartEvent): Transition;
/** Every later transition of a running loop. */
export function transition(def: LoopDefinition, snapshot: RunningSnapshot, event: RunEvent): Transition;
export function transition(def: LoopDefinition, snapshot: RunningSnapshot | null, event: CoreEvent): Transition {
  let d: Draft;
  if (event.type === 'start' || snapshot === null) {
    if (event.type !== 'start') throw new Error(`internal: a run must begin with a start event, not ${event.type}`);
    d = begin(def, event);
    if (d.rerunCurrent) {
      d.rerunCurrent = false;
      execute(d);
    }
  } else {
    const { status: _status, ...rest } = snapshot;
    d = { def, snap: { pending: null, outcome: null, ...rest }, now: event.now, events: [] };
    advance(d, event);
  }
  drain(d);
  return seal(d);
}

/** Enter queued states until one produces an effect or the run ends. */
function drain(d: Draft): void {
  for (let entries = 0; d.goto && d.snap.phase !== 'done'; entries += 1) {
    if (entries >= MAX_ENTRIES_PER_STEP) {
      d.goto = undefined;
      return finish(
        d,
        'error',
        `${MAX_ENTRIES_PER_STEP} states ran without any action in between: the loop is spinning in place; ` +
          'add an action, max_steps, backoff or maintain_delay',
      );
    }
    // A person's steer or pause acts here, between states (fsm/run/control.ts).
    if (beforeEntering(d) || !d.goto) return;
    const { name, newCycle } = d.goto;
    d.goto = undefined;
    enter(d, name, newCycle ? { newCycle } : {});
  }
}

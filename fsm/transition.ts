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
import { evaluateState, errorResult } from './evaluate-state.js';
import { failureText, invalidAnswerResult, llmResult, unavailableText } from './facts.js';
import { renderPrompt } from './interpolate.js';
import { resolveTarget, routeFor } from './routing.js';
import { begin } from './begin.js';
import { chomp, emit, finish, messageOf, scopeOf, setEffect, setPrev, stateOf, type Draft } from './draft.js';
import { DEFAULT_SCHEMA_RETRIES, type LoopDefinition, type StateConfig } from './schema.js';
import { renderShell } from './shell-render.js';
import { renderMcpCall } from './mcp-call.js';
import type { ActionRequest, CoreEvent, InvalidAnswer, RunEvent, RunningSnapshot, StartEvent, Transition } from './snapshot.js';
import type { ActionResult, CapturedValue, EvalResult, ExecutionResult, PromptText } from './types.js';
import { reaskText } from './answer-check.js';
import { subloopAsAction, subloopDetails, subloopInput, subloopTimeoutError, subloopTimeoutFailure, subloopVerdict } from './subloop.js';
import { actionKind, actionTimeout, displayAction } from './action.js';
import { attemptFailed, retryDelayMs, type AttemptOutcome } from './retry.js';
import { compareDiffStall, DEFAULT_MAX_STALL } from './evaluators/diff-stall.js';

/** States entered in one transition without any effect: past this the loop is spinning in place. */
const MAX_ENTRIES_PER_STEP = 100_000;


/** Move into `name`, counting passes and applying limits and backoff. */
function enter(d: Draft, name: string, options: { newCycle?: boolean } = {}): void {
  const { snap, def } = d;
  const repeat = options.newCycle !== true && snap.visited.includes(name);
  if (def.max_steps !== undefined && snap.steps >= def.max_steps) {
    // Checked first: a pass that never executes a state is not counted.
    snap.current = name;
    return finish(d, 'max_steps');
  }
  if (options.newCycle) {
    snap.iteration = 1;
    snap.visited = [name];
  } else if (repeat || snap.iteration === 0) {
    snap.iteration += 1;
    snap.visited = [name];
  } else {
    snap.visited = [...snap.visited, name];
  }
  snap.current = name;
  if (snap.iteration > def.max_iterations) {
    // The pass that would exceed the cap never starts.
    snap.iteration = def.max_iterations;
    return finish(d, 'max_iterations');
  }
  if (repeat && def.backoff) {
    snap.phase = 'backoff';
    setEffect(d, { type: 'sleep', ms: def.backoff * 1000, reason: 'backoff' });
    return;
  }
  execute(d);
}

/** Run the current state: its action, or (without one) its decision. */
function execute(d: Draft): void {
  const { snap } = d;
  const state = stateOf(d);
  snap.steps += 1;
  snap.attempt = 1;
  emit(d, 'state_enter', { state: snap.current, iteration: snap.iteration });
  if (state.loop !== undefined) return runSubloop(d, { ...state, loop: state.loop });
  if (state.action === undefined) return decide(d, state, null);
  runAction(d, state, state.action);
}

/** Render and start the current state's action: its first attempt, or a retry (not a new step). */
function runAction(d: Draft, state: StateConfig, action: string, schemaErrors?: readonly string[]): void {
  const { snap, def } = d;
  const kind = actionKind(state);
  const scope = scopeOf(def, snap, d.now);
  let input;
  try {
    input =
      kind === 'shell'
        ? { kind, shell: renderShell(action, scope) }
        : kind === 'mcp'
          ? { kind, mcp: renderMcpCall(action, state.params, scope) }
          : { kind, prompt: withReask(renderPrompt(action, scope), schemaErrors), agent: state.agent, tools: state.tools };
  } catch (err) {
    return failState(d, state, messageOf(err));
  }
  // Only definitions written with output_schema: carry it, so older runs issue the inputs they did.
  if (state.output_schema !== undefined) Object.assign(input, { output_schema: state.output_schema });
  const attempt = snap.attempt ?? 1;
  emit(d, 'action_start', { state: snap.current, action: displayAction(action, scope), action_type: kind, ...(attempt > 1 ? { attempt } : {}) });
  snap.phase = 'action';
  setEffect(d, { type: 'run_action', input: { ...input, state: snap.current, step: snap.steps, timeout_s: actionTimeout(def, state) } as ActionRequest });
}

/** A prompt asked again: the previous output's schema errors appended. */
function withReask(prompt: PromptText, schemaErrors: readonly string[] | undefined): PromptText {
  return schemaErrors === undefined ? prompt : { parts: [...prompt.parts, `\n\n${reaskText(schemaErrors)}`] };
}

/** Start the child loop of a `loop:` state (a child workflow in Temporal). */
function runSubloop(d: Draft, state: StateConfig & { loop: string }): void {
  const { snap } = d;
  let input;
  try {
    input = subloopInput(state, snap.current, snap.steps, scopeOf(d.def, snap, d.now));
  } catch (err) {
    return failState(d, state, messageOf(err));
  }
  emit(d, 'subloop_start', { state: snap.current, loop: input.loop, passthrough: input.passthrough !== undefined });
  snap.phase = 'subloop';
  setEffect(d, { type: 'run_loop', input });
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
  if (state.capture) {
    const { output, stderr, exit_code, duration_ms } = action;
    d.snap.captured = { ...d.snap.captured, [state.capture]: { output, stderr, exit_code, duration_ms } };
  }
  if (verdict === 'error') {
    const why = result.error ?? `it ended ${result.terminated_by} in state "${result.final_state}"`;
    return failState(d, state, `sub-loop "${result.loop}" failed: ${why}`, action);
  }
  if (state.next !== undefined) return routeTo(d, state, state.next, undefined, action);
  afterEvaluation(d, state, 'subloop', { verdict, details: subloopDetails(result.loop, result) }, action);
}

/**
 * When `outcome` fails this attempt under the state's `retry:` and attempts remain: emit
 * `action_retry`, then sleep (durably) or start the next attempt at once. False otherwise.
 */
function retryIfFailed(d: Draft, state: StateConfig, outcome: AttemptOutcome, why: Record<string, unknown>): boolean {
  const retry = state.retry;
  const attempt = d.snap.attempt ?? 1;
  if (!retry || state.action === undefined || attempt >= retry.attempts || !attemptFailed(state, outcome)) return false;
  const delay = retryDelayMs(retry, attempt);
  emit(d, 'action_retry', { state: d.snap.current, attempt, attempts: retry.attempts, delay_ms: delay, ...why });
  d.snap.attempt = attempt + 1;
  d.snap.pending = null;
  if (delay > 0) {
    d.snap.phase = 'retry_delay';
    setEffect(d, { type: 'sleep', ms: delay, reason: 'retry' });
  } else runAction(d, state, state.action);
  return true;
}

/** An error before or instead of evaluation: route it as the `error` verdict, or end the run. */
function failState(d: Draft, state: StateConfig, message: string, action?: ActionResult): void {
  const name = d.snap.current;
  emit(d, 'action_error', { state: name, error: message });
  const target = state.next !== undefined ? state.on_error : routeFor(state, 'error');
  if (target === undefined) {
    if (action) setPrev(d, action);
    return finish(d, 'error', `state "${name}": ${message}`);
  }
  const result = errorResult(message);
  d.snap.result = result;
  emit(d, 'evaluate', { state: name, type: 'error', verdict: 'error', error: message });
  routeTo(d, state, target, 'error', action ?? null);
}

/** Follow `target` (uninterpolated) from the current state. */
function routeTo(d: Draft, _state: StateConfig, target: string, verdict: string | undefined, action: ActionResult | null): void {
  const from = d.snap.current;
  const resolved = resolveTarget(d.def, d.snap.current, target, scopeOf(d.def, d.snap, d.now), 'route target');
  if ('error' in resolved) {
    setPrev(d, action);
    return finish(d, 'error', resolved.error);
  }
  const { to } = resolved;
  emit(d, 'route', { from, to, ...(verdict === undefined ? {} : { verdict }) });
  setPrev(d, action);
  d.goto = { name: to };
}

/** After the action (or without one): `next`, terminal, or evaluate and route. */
function decide(d: Draft, state: StateConfig, action: ActionResult | null): void {
  if (state.terminal) {
    setPrev(d, action);
    return reachTerminal(d, state);
  }
  if (state.next !== undefined) {
    if (action && action.exit_code !== 0 && state.on_error !== undefined) {
      return failState(d, state, `action exited with code ${action.exit_code}`, action);
    }
    return routeTo(d, state, state.next, undefined, action);
  }
  const evaluation = evaluateState(d.def, state, action, d.snap, scopeOf(d.def, d.snap, d.now));
  if (evaluation.kind === 'llm') {
    d.snap.phase = 'llm';
    d.snap.pending = action;
    delete d.snap.schemaAsks;
    setEffect(d, { type: 'evaluate_llm', input: { ...evaluation.input, state: d.snap.current } });
    return;
  }
  if (evaluation.kind === 'diff') {
    d.snap.phase = 'git_diff';
    d.snap.pending = action;
    setEffect(d, { type: 'diff_stat', input: { state: d.snap.current, scope: evaluation.scope } });
    return;
  }
  afterEvaluation(d, state, evaluation.type, evaluation.result, action);
}

function afterEvaluation(d: Draft, state: StateConfig, type: string, evaluated: EvalResult, action: ActionResult | null): void {
  const { snap } = d;
  // An output that matched its output_schema: its parsed value is ${result.details.value} (unless the evaluator set one).
  const check = action?.output_check;
  const result = check !== undefined && 'value' in check && !('value' in evaluated.details) ? { ...evaluated, details: { ...evaluated.details, value: check.value } } : evaluated;
  snap.result = result;
  const current = result.details.current;
  if (type === 'convergence' && typeof current === 'number') snap.lastValues = { ...snap.lastValues, [snap.current]: current };
  const confidence = result.details.confidence;
  emit(d, 'evaluate', {
    state: snap.current,
    type,
    verdict: result.verdict,
    ...(typeof confidence === 'number' ? { confidence } : {}),
    details: result.details,
  });
  if (action && retryIfFailed(d, state, { kind: 'verdict', verdict: result.verdict }, { verdict: result.verdict })) return;
  const target = routeFor(state, result.verdict);
  if (target === undefined) {
    setPrev(d, action);
    const why = result.verdict === 'error' && typeof result.details.error === 'string' ? ` (${result.details.error})` : '';
    return finish(
      d,
      'error',
      `no valid transition from state "${snap.current}" for verdict "${result.verdict}"${why}: ` +
        `add on_${result.verdict}: <state> or a route: entry for "${result.verdict}" (or _ as a default)`,
    );
  }
  routeTo(d, state, target, result.verdict, action);
}

/**
 * A terminal state was reached (its action done): the run ends, or in maintain mode a new cycle
 * starts at `on_maintain` (a name, `$current` or a template, like a route) or at `initial`.
 */
function reachTerminal(d: Draft, state: StateConfig): void {
  const { def, snap } = d;
  if (!def.maintain) return finish(d, 'terminal');
  const resolved = resolveTarget(def, snap.current, state.on_maintain ?? def.initial, scopeOf(def, snap, d.now), 'on_maintain');
  if ('error' in resolved) return finish(d, 'error', resolved.error);
  const target = resolved.to;
  snap.cycles += 1;
  emit(d, 'maintain_restart', { state: snap.current, cycle: snap.cycles, to: target });
  if (def.maintain_delay) {
    snap.phase = 'maintain_delay';
    snap.pending = null;
    setEffect(d, { type: 'sleep', ms: def.maintain_delay * 1000, reason: 'maintain_delay' });
    snap.visited = [target];
    snap.current = target;
    return;
  }
  d.goto = { name: target, newCycle: true };
}

function onActionDone(d: Draft, result: ActionResult): void {
  const state = stateOf(d);
  d.snap.pending = null;
  emit(d, 'action_complete', {
    state: d.snap.current,
    exit_code: result.exit_code,
    duration_ms: result.duration_ms,
    ...(result.timed_out ? { timed_out: true } : {}),
    ...(result.signal ? { signal: result.signal } : {}),
    ...(result.log_file ? { log_file: result.log_file } : {}),
  });
  const check = result.output_check;
  if (state.capture) {
    const { exit_code, duration_ms } = result;
    const value: CapturedValue = { output: chomp(result.output), stderr: chomp(result.stderr), exit_code, duration_ms };
    if (check !== undefined && 'value' in check) value.json = check.value;
    d.snap.captured = { ...d.snap.captured, [state.capture]: value };
  }
  if (result.error !== undefined) {
    if (retryIfFailed(d, state, { kind: 'could_not_run' }, { exit_code: result.exit_code, error: result.error })) return;
    if (!state.terminal) return failState(d, state, result.error, result);
  } else if (retryIfFailed(d, state, { kind: 'exit', exitCode: result.exit_code }, { exit_code: result.exit_code })) return;
  if (check !== undefined && 'errors' in check && !state.terminal) return onInvalidOutput(d, state, result, check.errors);
  delete d.snap.schemaAsks;
  decide(d, state, result);
}

/**
 * An output that missed the state's `output_schema:` (only definitions that have one get a check):
 * a prompt is asked again with the errors appended, up to `llm.schema_retries` times; then — and
 * at once for a shell command, which would print the same again — the state's verdict is `error`
 * with the errors in `details.errors`.
 */
function onInvalidOutput(d: Draft, state: StateConfig, result: ActionResult, errors: string[]): void {
  const asked = d.snap.schemaAsks ?? 0;
  const retries = d.def.llm.schema_retries ?? DEFAULT_SCHEMA_RETRIES;
  if (actionKind(state) === 'prompt' && state.action !== undefined && asked < retries) {
    d.snap.schemaAsks = asked + 1;
    emit(d, 'output_reask', { state: d.snap.current, ask: asked + 2, asks: retries + 1, errors });
    return runAction(d, state, state.action, errors);
  }
  delete d.snap.schemaAsks;
  const asks = actionKind(state) === 'prompt' ? ` after ${asked + 1} ${asked === 0 ? 'ask' : 'asks'}` : '';
  const message = `output does not match output_schema${asks}: ${errors[0] ?? 'it does not match'}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
  if (state.next !== undefined) return failState(d, state, message, result);
  afterEvaluation(d, state, 'output_schema', errorResult(message, { errors }), result);
}

/** A subloop's end, judged: the verdict comes from the child's result, a timeout or a failure. */
function onSubloopEvent(d: Draft, event: Extract<RunEvent, { type: 'subloop_done' | 'subloop_failed' | 'subloop_unavailable' }>): void {
  const input = runLoopTimeout(d);
  if (event.type === 'subloop_unavailable') return failState(d, stateOf(d), unavailableText(event.why));
  if (event.type === 'subloop_failed') {
    // The state's timeout stopped the child before it reported a result.
    if (event.timedOut && input !== undefined) return failState(d, stateOf(d), subloopTimeoutFailure(event.loop, input));
    return failState(d, stateOf(d), `sub-loop "${event.loop}" failed: ${failureText(event.failure)}`);
  }
  // A child stopped by the state's timeout records its own end as cancelled: say why.
  const result = event.timedOut && input !== undefined && event.result.terminated_by === 'cancelled' ? { ...event.result, error: subloopTimeoutError(input) } : event.result;
  onSubloopDone(d, result);
}


/** The `timeout:` (seconds) of the current sub-loop state, if it has one. */
function runLoopTimeout(d: Draft): number | undefined {
  return d.def.states[d.snap.current]?.timeout;
}


/** The diff_stall verdict for the worker's snapshot (remembered for the state's next pass), or its error. */
function diffStallResult(d: Draft, event: Extract<RunEvent, { type: 'diff_stat_done' | 'diff_stat_error' | 'diff_stat_failed' }>): EvalResult {
  const config = stateOf(d).evaluate;
  const maxStall = config?.type === 'diff_stall' ? config.max_stall : DEFAULT_MAX_STALL;
  if (event.type === 'diff_stat_error') return errorResult(event.error, { max_stall: maxStall });
  if (event.type === 'diff_stat_failed') return errorResult(`git diff --stat failed: ${failureText(event.failure)}`, { max_stall: maxStall });
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
    case 'llm_invalid':
      return onInvalidAnswer(d, event.invalid);
    case 'llm_replied':
    case 'llm_error':
    case 'llm_failed':
    case 'llm_done': {
      // The action result waited for this evaluation only; nothing is pending any more.
      const action = d.snap.pending;
      d.snap.pending = null;
      delete d.snap.schemaAsks;
      return afterEvaluation(d, stateOf(d), 'llm_structured', llmResult(d.def, stateOf(d), event), action);
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
      } else if (d.snap.phase === 'retry_delay') {
        const state = stateOf(d);
        if (state.action !== undefined) runAction(d, state, state.action);
        else execute(d);
      } else execute(d);
      return;
    case 'timeout':
      return finish(d, 'timeout', `loop timeout of ${d.def.timeout ?? '?'}s reached in state "${d.snap.current}"`);
    case 'cancel':
      return finish(d, 'cancelled');
  }
}

/**
 * An answer that missed its schema (only runs that check answers get one): ask the same question
 * again with the errors appended, up to `llm.schema_retries` times (each ask its own activity, the
 * count in the snapshot), then judge `error` with the errors in `details.errors`.
 */
function onInvalidAnswer(d: Draft, invalid: InvalidAnswer): void {
  const state = stateOf(d);
  const action = d.snap.pending;
  const asked = d.snap.schemaAsks ?? 0;
  // Definitions loaded before schema_retries existed carry no value; they get the default.
  const retries = d.def.llm.schema_retries ?? DEFAULT_SCHEMA_RETRIES;
  if (asked < retries) {
    const evaluation = evaluateState(d.def, state, action, d.snap, scopeOf(d.def, d.snap, d.now));
    if (evaluation.kind === 'llm') {
      d.snap.schemaAsks = asked + 1;
      emit(d, 'llm_reask', { state: d.snap.current, ask: asked + 2, asks: retries + 1, errors: invalid.errors });
      setEffect(d, { type: 'evaluate_llm', input: { ...evaluation.input, state: d.snap.current, schema_errors: invalid.errors } });
      return;
    }
  }
  d.snap.pending = null;
  delete d.snap.schemaAsks;
  afterEvaluation(d, state, 'llm_structured', invalidAnswerResult(invalid, asked + 1), action);
}

/** The transition's typed output: the sealed snapshot with its one effect. */
function seal(d: Draft): Transition {
  const { phase, pending, outcome, ...data } = d.snap;
  const effect = d.effect;
  if (!effect) throw new Error(`internal: the transition in state "${d.snap.current}" decided no effect`);
  if (effect.type === 'finish') return { snapshot: { ...data, status: 'done', phase: 'done', outcome: outcome ?? effect.result }, events: d.events, effect };
  const running: RunningSnapshot =
    phase === 'llm' || phase === 'git_diff' ? { ...data, status: 'running', phase, pending } : { ...data, status: 'running', phase: phase === 'done' || phase === 'starting' ? 'action' : phase };
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
    const { name, newCycle } = d.goto;
    d.goto = undefined;
    enter(d, name, newCycle ? { newCycle } : {});
  }
}

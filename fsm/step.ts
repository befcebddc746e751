/**
 * The pure core's entry point: `step(definition, snapshot, event) → { snapshot, commands }`.
 *
 * The Temporal workflow (or a test) feeds events in and carries out the commands: run an action,
 * ask an LLM to evaluate, sleep, finish; `emit` commands are the event stream. No I/O, no clock:
 * time arrives in each event. Decided semantics (docs/loop-format.md):
 * - A pass starts at the initial state; entering a state already visited in the current pass
 *   starts the next pass. `max_iterations` caps passes, `max_steps` state executions.
 * - A terminal state's action runs (recorded, not evaluated), then the run ends.
 * - Failures to interpolate or evaluate are `error` verdicts, routed like any other.
 */
import { evaluateState, errorResult } from './evaluate-state.js';
import { renderPrompt } from './interpolate.js';
import { resolveTarget, routeFor } from './routing.js';
import { chomp, emit, finish, messageOf, scopeOf, setPrev, stateOf, type Draft } from './draft.js';

export { scopeOf };

/** States entered in one `step()` without any effect: past this the loop is spinning in place. */
const MAX_ENTRIES_PER_STEP = 100_000;
import type { LoopDefinition, StateConfig } from './schema.js';
import { renderShell } from './shell-render.js';
import { initialSnapshot, type Snapshot, type StepEvent, type StepOutput } from './snapshot.js';
import type { ActionResult, EvalResult, ExecutionResult } from './types.js';
import { subloopAsAction, subloopDetails, subloopInput, subloopVerdict } from './subloop.js';
import { actionKind, actionTimeout, displayAction } from './action.js';
import { attemptFailed, retryDelayMs, type AttemptOutcome } from './retry.js';

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
    d.commands.push({ type: 'sleep', ms: def.backoff * 1000, reason: 'backoff' });
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
function runAction(d: Draft, state: StateConfig, action: string): void {
  const { snap, def } = d;
  const kind = actionKind(state);
  const scope = scopeOf(def, snap, d.now);
  let input;
  try {
    input =
      kind === 'shell'
        ? { kind, shell: renderShell(action, scope) }
        : { kind, prompt: renderPrompt(action, scope), agent: state.agent, tools: state.tools };
  } catch (err) {
    return failState(d, state, messageOf(err));
  }
  const attempt = snap.attempt ?? 1;
  emit(d, 'action_start', { state: snap.current, action: displayAction(action, scope), action_type: kind, ...(attempt > 1 ? { attempt } : {}) });
  snap.phase = 'action';
  d.commands.push({
    type: 'run_action',
    input: { ...input, state: snap.current, step: snap.steps, timeout_s: actionTimeout(def, state) } as Omit<
      import('./types.js').RunActionInput,
      'instanceId' | 'cwd'
    >,
  });
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
  d.commands.push({ type: 'run_loop', input });
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
  if (state.next !== undefined) return transition(d, state, state.next, undefined, action);
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
    d.commands.push({ type: 'sleep', ms: delay, reason: 'retry' });
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
  transition(d, state, target, 'error', action ?? null);
}

/** Follow `target` (uninterpolated) from the current state. */
function transition(d: Draft, state: StateConfig, target: string, verdict: string | undefined, action: ActionResult | null): void {
  const from = d.snap.current;
  const resolved = resolveTarget(d.def, d.snap.current, target, scopeOf(d.def, d.snap, d.now), 'route target');
  if ('error' in resolved) {
    setPrev(d, action);
    return finish(d, 'error', resolved.error);
  }
  const { to } = resolved;
  emit(d, 'route', { from, to, ...(verdict === undefined ? {} : { verdict }) });
  setPrev(d, action);
  void state;
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
    return transition(d, state, state.next, undefined, action);
  }
  const evaluation = evaluateState(d.def, state, action, d.snap, scopeOf(d.def, d.snap, d.now));
  if (evaluation.kind === 'llm') {
    d.snap.phase = 'llm';
    d.snap.pending = action;
    d.commands.push({ type: 'evaluate_llm', input: { ...evaluation.input, state: d.snap.current } });
    return;
  }
  afterEvaluation(d, state, evaluation.type, evaluation.result, action);
}

function afterEvaluation(d: Draft, state: StateConfig, type: string, result: EvalResult, action: ActionResult | null): void {
  const { snap } = d;
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
  transition(d, state, target, result.verdict, action);
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
    d.commands.push({ type: 'sleep', ms: def.maintain_delay * 1000, reason: 'maintain_delay' });
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
  if (state.capture) {
    const { exit_code, duration_ms } = result;
    const value = { output: chomp(result.output), stderr: chomp(result.stderr), exit_code, duration_ms };
    d.snap.captured = { ...d.snap.captured, [state.capture]: value };
  }
  if (result.error !== undefined) {
    if (retryIfFailed(d, state, { kind: 'could_not_run' }, { exit_code: result.exit_code, error: result.error })) return;
    if (!state.terminal) return failState(d, state, result.error, result);
  } else if (retryIfFailed(d, state, { kind: 'exit', exitCode: result.exit_code }, { exit_code: result.exit_code })) return;
  decide(d, state, result);
}

/**
 * Start a run: the snapshot for `def` and the commands for its first state. A sub-loop's run
 * starts with what its parent passed in (`captured`, `dataContext`).
 */
export function start(def: LoopDefinition, now: number, inherited: { captured?: Snapshot['captured']; dataContext?: string[] } = {}): StepOutput {
  const snap = initialSnapshot(def.initial, now);
  if (inherited.captured) snap.captured = inherited.captured;
  if (inherited.dataContext?.length) snap.dataContext = inherited.dataContext;
  return step(def, snap, { type: 'start', now });
}

/** A run that cannot start (e.g. a sub-loop whose parameters do not fit): it ends with `error`. */
export function failedStart(def: LoopDefinition, now: number, error: string): StepOutput {
  const d: Draft = { def, snap: initialSnapshot(def.initial, now), now, commands: [] };
  emit(d, 'loop_start', { loop: def.name, initial: def.initial, max_iterations: def.max_iterations });
  finish(d, 'error', error);
  return { snapshot: d.snap, commands: d.commands };
}

/**
 * Continue a run from a snapshot another run left (stopped, timed out, failed): the state it was
 * in runs again, with its captured values, counters and last result. `context` overrides the
 * definition's context for the new run (as `--context` does).
 */
export function resume(def: LoopDefinition, snapshot: Snapshot, now: number, fromRun: string): StepOutput {
  // A new run: a fresh clock (and so a fresh loop-level timeout budget); everything else carries.
  const snap: Snapshot = { ...snapshot, outcome: null, pending: null, phase: 'starting', startedAtMs: now, startedAt: new Date(now).toISOString() };
  const d: Draft = { def, snap, now, commands: [] };
  emit(d, 'loop_resume', { loop: def.name, from_run: fromRun, state: d.snap.current, iteration: d.snap.iteration });
  if (!(d.snap.current in def.states)) {
    finish(d, 'error', `cannot resume: state "${d.snap.current}" is not in the loop definition any more; known: ${Object.keys(def.states).join(', ')}`);
    return { snapshot: d.snap, commands: d.commands };
  }
  if (d.snap.iteration > def.max_iterations) {
    d.snap.iteration = def.max_iterations;
    finish(d, 'max_iterations');
    return { snapshot: d.snap, commands: d.commands };
  }
  execute(d);
  drain(d);
  return { snapshot: d.snap, commands: d.commands };
}

/** Advance the run by one event. Never throws for run-time problems: they end the run with an error. */
export function step(def: LoopDefinition, snapshot: Snapshot, event: StepEvent): StepOutput {
  const d: Draft = { def, snap: { ...snapshot }, now: event.now, commands: [] };
  if (d.snap.phase === 'done') return { snapshot: d.snap, commands: [] };
  switch (event.type) {
    case 'start':
      emit(d, 'loop_start', { loop: def.name, initial: def.initial, max_iterations: def.max_iterations });
      d.goto = { name: def.initial };
      break;
    case 'action_done':
      onActionDone(d, event.result);
      break;
    case 'action_failed': {
      const state = stateOf(d);
      if (!retryIfFailed(d, state, { kind: 'could_not_run' }, { error: event.error })) failState(d, state, event.error);
      break;
    }
    case 'loop_done':
      onSubloopDone(d, event.result);
      break;
    case 'loop_failed':
      failState(d, stateOf(d), event.error);
      break;
    case 'llm_done': {
      // The action result waited for this evaluation only; nothing is pending any more.
      const action = d.snap.pending;
      d.snap.pending = null;
      afterEvaluation(d, stateOf(d), 'llm_structured', event.result, action);
      break;
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
      break;
    case 'timeout':
      finish(d, 'timeout', `loop timeout of ${def.timeout ?? '?'}s reached in state "${d.snap.current}"`);
      break;
    case 'cancel':
      finish(d, 'cancelled');
      break;
  }
  drain(d);
  return { snapshot: d.snap, commands: d.commands };
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

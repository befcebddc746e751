/**
 * The steps every transition is made of: entering a state (passes, limits, backoff), running its
 * action or sub-loop, retrying an attempt, judging and routing, failing a state, reaching a
 * terminal. The handlers of observed facts (fsm/run/transition.ts, fsm/run/reask.ts, fsm/run/on-subloop.ts)
 * call these; this module calls none of them, so the core has no import cycles.
 */
import { evaluateState, errorResult } from '../evaluate-state.js';
import { renderPrompt } from '../interpolate.js';
import { resolveTarget, routeFor } from '../routing.js';
import { emit, endAsks, finish, messageOf, scopeOf, setEffect, setPrev, stateOf, type Draft } from './draft.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import { promptProviderRequest } from '../llm-provider.js';
import { renderShell } from '../shell-render.js';
import { renderMcpCall } from '../mcp-call.js';
import type { ActionRequest } from './snapshot.js';
import type { RetryCause } from './events.js';
import type { ActionResult, BudgetHit, EvalResult, LlmProviderRequest, PromptText, ShellCommand } from '../types.js';
import { CONTINUATION_VAR, continuationText, stopAfterRoute, takeContinuation } from './on-signal.js';
import { reaskText } from '../answer-check.js';
import { subloopInput } from './subloop.js';
import { isHumanState } from '../human.js';
import { askHuman } from './human-wait.js';
import { startParallel } from './parallel-start.js';
import { actionIdleTimeout, actionKind, actionTimeout, displayAction } from '../action.js';
import { withSession } from './agent-session.js';
import { attemptFailed, retryDelayMs, type AttemptOutcome } from './retry.js';
import { budgetMessage, cannotCover, childBudget } from './budget.js';
import { sharedBudgetHit } from './shared-budget.js';
import { capHandler, capReached, reentryTarget, scoreHistoryFile } from './original-limits.js';
import { tamperPolicy } from '../tamper-guard.js';
import { prepatchPolicy } from '../prepatch-check.js';
import { prepatchGate } from './prepatch.js';

/** Move into `name`, counting passes and applying limits and backoff. */
export function enter(d: Draft, name: string, options: { newCycle?: boolean } = {}): void {
  const { snap, def } = d;
  const repeat = options.newCycle !== true && snap.visited.includes(name);
  const cap = capReached(d);
  if (cap !== undefined) {
    // Checked first: a pass that never executes a state is not counted.
    const handler = capHandler(d, cap);
    if (handler !== undefined) return toCapHandler(d, cap, handler, options);
    snap.current = name;
    return finish(d, cap);
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
  if (snap.iteration > def.max_iterations && snap.capRouted === undefined) {
    // The pass that would exceed the cap never starts.
    snap.iteration = def.max_iterations;
    const handler = capHandler(d, 'max_iterations');
    if (handler !== undefined) return toCapHandler(d, 'max_iterations', handler, options);
    return finish(d, 'max_iterations');
  }
  if (repeat && def.backoff) {
    snap.phase = 'backoff';
    setEffect(d, { type: 'sleep', ms: def.backoff * 1000, reason: 'backoff' });
    return;
  }
  execute(d);
}

/** A cap was reached the first time and the loop names its handler: the run goes there instead. */
function toCapHandler(d: Draft, cap: string, handler: string, options: { newCycle?: boolean }): void {
  emit(d, 'route', { from: d.snap.current, to: handler, verdict: cap });
  enter(d, handler, options);
}

/** Run the current state: its action, or (without one) its decision. */
export function execute(d: Draft): void {
  const { snap } = d;
  const state = stateOf(d);
  snap.steps += 1;
  snap.attempt = 1;
  emit(d, 'state_enter', { state: snap.current, iteration: snap.iteration });
  if (state.loop !== undefined) return runSubloop(d, { ...state, loop: state.loop });
  if (isHumanState(state)) return askHuman(d, state, (message) => failState(d, state, message));
  if (state.parallel !== undefined) {
    const unresolved = startParallel(d, state);
    return unresolved === undefined ? undefined : failState(d, state, unresolved);
  }
  if (state.action === undefined) return decide(d, state, null);
  runAction(d, state, state.action);
}

/** Render and start the current state's action: its first attempt, or a retry (not a new step). */
export function runAction(d: Draft, state: StateConfig, action: string, schemaErrors?: readonly string[]): void {
  const { snap, def } = d;
  const kind = actionKind(state);
  const scope = scopeOf(def, snap, d.now);
  let input;
  let idle: number | undefined;
  try {
    idle = actionIdleTimeout(def, state, scope);
    input =
      kind === 'shell'
        ? { kind, shell: renderShell(action, scope) }
        : kind === 'mcp'
          ? { kind, mcp: renderMcpCall(action, state.params, scope) }
          : {
              kind,
              prompt: withReask(renderPrompt(action, scope), schemaErrors),
              agent: state.agent,
              tools: state.tools,
              ...promptRunner(def, state),
            };
  } catch (err) {
    return failState(d, state, messageOf(err));
  }
  // `session_mode: continue`: the previous prompt action's session, resumed or summarized (agent-session.ts).
  if (input.kind === 'prompt') input = withSession(d, state, input);
  // A handed-off session's payload goes to the next action that can take it (fsm/run/on-signal.ts).
  if (d.snap.continuation !== undefined && input.kind !== 'mcp')
    input = withContinuation(input, takeContinuation(d) ?? '');
  // A completion's stated maximum that the tokens left cannot cover: the call is not made.
  const provider = 'llm' in input ? input.llm : undefined;
  // An item of a fan-out whose shared budget its siblings spent makes no further agent call.
  const short =
    (kind === 'prompt' ? sharedBudgetHit(snap) : undefined) ??
    (provider === undefined ? undefined : cannotCover(def, snap, snap.current, provider.max_tokens));
  if (short !== undefined) return budgetSpent(d, state, short, null);
  // Only definitions written with output_schema: carry it, so older runs issue the inputs they did.
  if (state.output_schema !== undefined) Object.assign(input, { output_schema: state.output_schema });
  // Only guarded states carry a tamper_guard policy, so others issue the inputs they did (fsm/tamper-guard.ts).
  const guard = tamperPolicy(def, state);
  if (guard !== undefined) Object.assign(input, { tamper_guard: guard });
  const prepatch = prepatchPolicy(def, state);
  if (prepatch !== undefined) Object.assign(input, { prepatch_check: prepatch });
  // A score_stall state's history file is read by the worker after the action (original-limits.ts).
  let history: string | undefined;
  try {
    history = scoreHistoryFile(state, scope);
  } catch (err) {
    return failState(d, state, messageOf(err));
  }
  if (history !== undefined) Object.assign(input, { read_after: history });
  // Only states with an idle limit carry one, so every other action's input is as it was.
  if (idle !== undefined) Object.assign(input, { idle_timeout_s: idle });
  const attempt = snap.attempt ?? 1;
  emit(d, 'action_start', {
    state: snap.current,
    action: displayAction(action, scope),
    action_type: kind,
    ...(attempt > 1 ? { attempt } : {}),
  });
  snap.phase = 'action';
  setEffect(d, {
    type: 'run_action',
    input: { ...input, state: snap.current, step: snap.steps, timeout_s: actionTimeout(def, state) } as ActionRequest,
  });
}

/**
 * Who runs a prompt: an API provider (`llm` in the input), a model for the host CLI from the
 * state's own `llm.model`, or nothing. A state without an `llm:` of its own under a loop without
 * an API provider adds nothing, so definitions from before issue 13 issue byte-identical inputs.
 */
function promptRunner(def: LoopDefinition, state: StateConfig): { llm?: LlmProviderRequest; model?: string } {
  const request = promptProviderRequest(def, state);
  // Validation refuses invalid settings before a run starts; one that slipped through runs nothing new.
  if (request !== undefined && !('invalid' in request)) return { llm: request };
  return state.llm?.model !== undefined && request === undefined ? { model: state.llm.model } : {};
}

/** The action with a handoff's payload: appended to a prompt, in `$LL_CONTINUATION` for a shell action. */
function withContinuation<T extends { shell?: ShellCommand; prompt?: PromptText }>(input: T, payload: string): T {
  if (input.prompt !== undefined)
    return { ...input, prompt: { parts: [...input.prompt.parts, continuationText(payload)] } };
  if (input.shell !== undefined)
    return { ...input, shell: { ...input.shell, vars: { ...input.shell.vars, [CONTINUATION_VAR]: payload } } };
  return input;
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
  // A parent with a budget passes what is left of it (the loop's and the state's): the child spends from it (fsm/run/budget.ts).
  const remaining = childBudget(d.def, snap, snap.current);
  if (remaining !== undefined) input.budget = remaining;
  emit(d, 'subloop_start', { state: snap.current, loop: input.loop, passthrough: input.passthrough !== undefined });
  snap.phase = 'subloop';
  setEffect(d, { type: 'run_loop', input });
}

/**
 * When `outcome` fails this attempt under the state's `retry:` and attempts remain: emit
 * `action_retry`, then sleep (durably) or start the next attempt at once. False otherwise.
 */
export function retryIfFailed(d: Draft, state: StateConfig, outcome: AttemptOutcome, why: RetryCause): boolean {
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
export function failState(d: Draft, state: StateConfig, message: string, action?: ActionResult): void {
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

/**
 * A budget is spent (fsm/run/budget.ts): `budget_spent`, then `on_budget:` when the state has one,
 * else the run ends `terminated_by: budget`. Whatever the last agent call answered is not followed.
 */
export function budgetSpent(d: Draft, state: StateConfig, hit: BudgetHit, action: ActionResult | null): void {
  const name = d.snap.current;
  d.snap.pending = null;
  endAsks(d);
  delete d.snap.rateLimit;
  emit(d, 'budget_spent', {
    state: name,
    scope: hit.scope,
    limit: hit.limit,
    spent: hit.spent,
    max: hit.max,
    ...(hit.needed === undefined ? {} : { needed: hit.needed }),
  });
  if (state.on_budget !== undefined) return routeTo(d, state, state.on_budget, undefined, action);
  setPrev(d, action);
  finish(d, 'budget', budgetMessage(hit, name));
}

/** Follow `target` (uninterpolated) from the current state. */
export function routeTo(
  d: Draft,
  state: StateConfig,
  target: string,
  verdict: string | undefined,
  action: ActionResult | null,
): void {
  const from = d.snap.current;
  const resolved = resolveTarget(d.def, d.snap.current, target, scopeOf(d.def, d.snap, d.now), 'route target');
  if ('error' in resolved) {
    setPrev(d, action);
    return finish(d, 'error', resolved.error);
  }
  // max_retries/retryable_exit_codes may send a re-entry to on_retry_exhausted (original-limits.ts).
  const reentry = reentryTarget(d, state, resolved.to, action);
  if ('error' in reentry) {
    setPrev(d, action);
    return finish(d, 'error', reentry.error);
  }
  const { to } = reentry;
  const shown = reentry.exhausted === undefined ? verdict : 'retry_exhausted';
  emit(d, 'route', { from, to, ...(shown === undefined ? {} : { verdict: shown }) });
  setPrev(d, action);
  if (stopAfterRoute(d, to)) return;
  d.goto = { name: to };
}

/** After the action (or without one): `next`, terminal, or evaluate and route. */
export function decide(d: Draft, state: StateConfig, action: ActionResult | null): void {
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
    // A provider's stated maximum that the tokens left cannot cover: the call is not made.
    const short =
      sharedBudgetHit(d.snap) ?? cannotCover(d.def, d.snap, d.snap.current, evaluation.input.llm?.max_tokens);
    if (short !== undefined) return budgetSpent(d, state, short, action);
    d.snap.phase = 'llm';
    d.snap.pending = action;
    endAsks(d);
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

export function afterEvaluation(
  d: Draft,
  state: StateConfig,
  type: string,
  evaluated: EvalResult,
  action: ActionResult | null,
): void {
  const { snap } = d;
  // An output that matched its output_schema: its parsed value is ${result.details.value} (unless the evaluator set one).
  const check = action?.output_check;
  const result =
    check !== undefined && 'value' in check && !('value' in evaluated.details)
      ? { ...evaluated, details: { ...evaluated.details, value: check.value } }
      : evaluated;
  snap.result = result;
  const current = result.details.current;
  if (type === 'convergence' && typeof current === 'number')
    snap.lastValues = { ...snap.lastValues, [snap.current]: current };
  const confidence = result.details.confidence;
  emit(d, 'evaluate', {
    state: snap.current,
    type,
    verdict: result.verdict,
    ...(typeof confidence === 'number' ? { confidence } : {}),
    details: result.details,
  });
  // A check that passes without the patch does not pass the gate (fsm/prepatch-check.ts).
  const notPatched = prepatchGate(d, state, action, result.verdict);
  if (notPatched !== undefined) return failState(d, state, notPatched, action ?? undefined);
  if (action && retryIfFailed(d, state, { kind: 'verdict', verdict: result.verdict }, { verdict: result.verdict }))
    return;
  const target = routeFor(state, result.verdict);
  if (target === undefined) {
    setPrev(d, action);
    const why =
      result.verdict === 'error' && typeof result.details.error === 'string' ? ` (${result.details.error})` : '';
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
  const resolved = resolveTarget(
    def,
    snap.current,
    state.on_maintain ?? def.initial,
    scopeOf(def, snap, d.now),
    'on_maintain',
  );
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

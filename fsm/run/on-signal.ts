/**
 * What a stdout signal in an action's output does to the run (fsm/stdout-signals.ts says what one
 * is; the worker finds it when the action's input asks: RunActionInput.detect_signals):
 * - `FATAL_ERROR: <msg>` ends the run with `terminated_by: error` and that message; the output is
 *   not evaluated.
 * - `CONTEXT_HANDOFF: <payload>`: the state's work is unfinished and its output is not evaluated.
 *   By the loop's `on_handoff` (default `pause`, as in little-loops):
 *   `terminate` ends the run with `terminated_by: handoff` (`ll-loop resume` runs the state again);
 *   `pause` waits, durably, until `ll-loop resume` continues it; `spawn` continues at once. A run
 *   that continues enters the state again, its next action carrying the payload (a prompt: appended;
 *   a shell action: `$LL_CONTINUATION`) in a fresh agent session (even under `session_mode: continue`).
 *   `config.automation.max_continuations` caps how many handoffs a run continues; past it the run
 *   ends as under `terminate`.
 * - `LOOP_STOP: [reason]`: the output is evaluated and routed as usual; then, instead of entering
 *   the next state, the run ends stopped there (`terminated_by: cancelled`, closed Completed), so
 *   `ll-loop resume` continues at that state.
 */
import { emit, finish, setEffect, setPrev, type Draft } from './draft.js';
import type { LoopDefinition } from '../schema.js';
import type { StdoutSignal } from '../stdout-signals.js';
import type { ActionResult } from '../types.js';

type HandoffMode = 'pause' | 'spawn' | 'terminate';

/** The loop's `on_handoff`, defaulted. */
function handoffMode(def: LoopDefinition): HandoffMode {
  return def.on_handoff ?? 'pause';
}

/** `config.automation.max_continuations` (or its alias `config.continuation.max_continuations`); undefined: no cap. */
function maxContinuations(def: LoopDefinition): number | undefined {
  return def.config?.automation?.max_continuations ?? def.config?.continuation?.max_continuations;
}

/**
 * Act on the signal of a finished action. True when it decided the transition (fatal error,
 * handoff); false when the state goes on to its evaluation (a stop, which acts after routing).
 */
export function onStdoutSignal(d: Draft, signal: StdoutSignal, action: ActionResult): boolean {
  const state = d.snap.current;
  if (signal.kind === 'loop_stop') {
    emit(d, 'loop_stop', { state, message: signal.payload });
    d.snap.stopping = signal.payload;
    return false;
  }
  setPrev(d, action);
  if (signal.kind === 'fatal_error') {
    emit(d, 'fatal_error', { state, message: signal.payload });
    finish(d, 'error', `state "${state}": FATAL_ERROR: ${signal.payload}`);
    return true;
  }
  handOff(d, signal.payload);
  return true;
}

function handOff(d: Draft, payload: string): void {
  const { snap, def } = d;
  const state = snap.current;
  const mode = handoffMode(def);
  const cap = maxContinuations(def);
  const done = snap.continuations ?? 0;
  const capped = mode !== 'terminate' && cap !== undefined && done >= cap;
  emit(d, 'handoff', {
    state,
    mode: capped ? 'terminate' : mode,
    payload,
    ...(capped ? { max_continuations: cap } : {}),
    ...(mode === 'terminate' ? {} : { continuation: done + 1 }),
  });
  // The payload stays with the run: whoever continues it (now, after a pause, or `ll-loop resume`) gets it.
  snap.continuation = payload;
  // The handed-off session is spent: no `session_mode: continue` state carries it on (agent-session.ts).
  delete snap.agentSession;
  if (mode === 'terminate' || capped) {
    const why = capped ? `; config.automation.max_continuations (${cap}) reached` : '';
    return finish(d, 'handoff', `state "${state}" handed off (CONTEXT_HANDOFF: ${payload})${why}`);
  }
  if (mode === 'pause') {
    snap.handoff = { state, payload, since_ms: d.now };
    snap.phase = 'handoff';
    setEffect(d, { type: 'await_handoff', state });
    return;
  }
  continueHandoff(d);
}

/** The handed-off run goes on: the same state again, its next action carrying the payload. */
export function continueHandoff(d: Draft): void {
  const { snap } = d;
  const paused = snap.handoff;
  delete snap.handoff;
  snap.continuations = (snap.continuations ?? 0) + 1;
  if (paused !== undefined) emit(d, 'handoff_resumed', { state: snap.current, waited_ms: d.now - paused.since_ms });
  d.goto = { name: snap.current };
}

/**
 * A `LOOP_STOP:` is pending and the state routed to `to`: the run ends there, stopped. True when
 * it did (the caller enters nothing).
 */
export function stopAfterRoute(d: Draft, to: string): boolean {
  const reason = d.snap.stopping;
  if (reason === undefined) return false;
  delete d.snap.stopping;
  d.snap.current = to;
  finish(d, 'cancelled', reason === '' ? undefined : `LOOP_STOP: ${reason}`);
  // Asked for by the loop, not from outside: the workflow completes (fsm/run/outcome.ts closing).
  if (d.snap.outcome) d.snap.outcome.stopped_by = 'loop_stop';
  return true;
}

/** The environment variable a shell action finds a handoff's payload in. */
export const CONTINUATION_VAR = 'LL_CONTINUATION';

/** The continuation the next action carries (and the run drops), for shell and prompt actions. */
export function takeContinuation(d: Draft): string | undefined {
  const text = d.snap.continuation;
  if (text !== undefined) delete d.snap.continuation;
  return text;
}

/** A prompt continuing a handed-off session: the payload after the state's own prompt. */
export function continuationText(payload: string): string {
  return `\n\nA previous agent session handed this task off before finishing (CONTEXT_HANDOFF). Continue from where it left off:\n${payload}`;
}

/**
 * The core re-run over a recorded history: a run's event stream, rebuilt.
 *
 * The workflow is an interpreter of the pure core, and everything the core was fed is in the
 * history: the input (definition, options, continue-from point) in WorkflowExecutionStarted, each
 * action and LLM result in ActivityTaskCompleted/Failed/TimedOut (remote) or in a local activity's
 * marker, each backoff or maintain delay as a fired timer, and the time of each step in the
 * workflow task that processed it. Re-running `start`/`resume`/`step` over them gives back the
 * events the live run emitted; a cancellation or the loop timeout is taken from the run's result.
 * Timestamps (`ts`) are the workflow's own clock at each step.
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import type { Command, Snapshot, StepEvent, StepOutput } from '../../fsm/snapshot.js';
import { failedStart, resume, start, step } from '../../fsm/step.js';
import { childStart, subloopTimeoutError, subloopTimeoutFailure } from '../../fsm/subloop.js';
import type { ActionResult, EvalResult, ExecutionResult } from '../../fsm/types.js';
import type { TimedEvent } from '../../worker/event-hub.js';
import { LOOP_FAILED, type LoopWorkflowInput } from '../../workflows/definitions.js';
import {
  decodeFirst,
  durationMs,
  eventTimeMs,
  failureMessages,
  isCancelledFailure,
  timestampMs,
  type HistoryEvent,
} from './temporal-history.js';

/** How the chain ended, as far as the history goes. */
export type RunEnd =
  | { status: 'completed'; result: ExecutionResult }
  | { status: 'failed' | 'terminated' | 'timed_out' | 'canceled'; reason: string };

/**
 * The workflow takes a 1 ms timer after quick local actions to record them (see
 * docs/architecture.md, "Flush"); the action's result reaches the core only after that timer.
 */
const LOCAL_FLUSH_TIMER_MS = 1;

/** An action or LLM outcome on its way to the core. */
interface Completion {
  type: string;
  outcome: { result?: unknown; error?: string[] };
  now: number;
}

/** The local-activity marker's `data` field (written by the SDK's core). */
interface LocalActivityMarkerData {
  activity_type?: string;
  complete_time?: { seconds?: number; nanos?: number };
}

/** How a child workflow (a sub-loop) closed, from its parent's history; undefined for other events. */
function childOutcome(e: HistoryEvent): { result: ExecutionResult } | { error: string } | undefined {
  const done = e.childWorkflowExecutionCompletedEventAttributes;
  if (done) {
    const result = decodeFirst<ExecutionResult>(done.result);
    return result ? { result } : { error: 'the child workflow completed without a result' };
  }
  const failed = e.childWorkflowExecutionFailedEventAttributes ?? e.startChildWorkflowExecutionFailedEventAttributes;
  if (failed) return { error: ('failure' in failed ? failureMessages(failed.failure) : []).join(': ') || 'the child workflow failed' };
  if (e.childWorkflowExecutionTimedOutEventAttributes) return { error: 'the child workflow timed out' };
  if (e.childWorkflowExecutionTerminatedEventAttributes) return { error: 'the child workflow was terminated' };
  if (e.childWorkflowExecutionCanceledEventAttributes) return { error: 'the child workflow was cancelled' };
  return undefined;
}

/** Feeds history events, in order and possibly page by page, through the pure core. */
export class EventRebuilder {
  /** The events rebuilt so far. */
  readonly events: TimedEvent[] = [];
  /** The first run's input (definition, options). */
  input: LoopWorkflowInput | undefined;
  snapshot: Snapshot | undefined;
  /** Set once the chain has closed. */
  end: RunEnd | undefined;
  /** Why the rebuilt stream may differ from the live one (empty when it matched the result). */
  readonly warnings: string[] = [];
  /** Temporal run ids of the chain's executions, in order. */
  readonly runIds: string[] = [];

  private effect: Command | undefined;
  private pendingStart: 'start' | 'resume' | undefined;
  /** Completions waiting for the workflow task that processes them. */
  private queue: HistoryEvent[] = [];
  private readonly taskStarts = new Map<string, number>();
  private readonly activityTypes = new Map<string, string>();
  private timersInRun = 0;
  private deadlineTimer: string | undefined;
  private sleepTimer: string | undefined;
  private timedOut = false;
  /** A local action's result, held until we know whether a flush timer follows it. */
  private heldLocal: Completion | undefined;
  /** A local action's result waiting for its flush timer to fire. */
  private flushing: { timerId: string; completion: Completion } | undefined;

  constructor(private readonly onEvent?: (event: TimedEvent) => void) {}

  /** The definition the run interpreted (a sub-loop's with its parent's bindings applied). */
  get definition(): LoopDefinition | undefined {
    return this.effective?.definition ?? this.input?.definition;
  }

  private effective: { definition: LoopDefinition; inherited: Parameters<typeof start>[2] } | undefined;
  /** The timer of a running sub-loop state's `timeout:`, and whether it fired (see run-child.ts). */
  private subloopTimer: { id: string; fired: boolean } | undefined;
  private childError: string | undefined;
  private cancelRequested = false;

  /** Feed the next events of execution `runId`. */
  feed(runId: string, events: readonly HistoryEvent[]): void {
    if (this.runIds.at(-1) !== runId) this.newRun(runId);
    for (const event of events) this.handle(event);
  }

  private newRun(runId: string): void {
    this.runIds.push(runId);
    this.queue = [];
    this.taskStarts.clear();
    this.activityTypes.clear();
    this.timersInRun = 0;
    this.deadlineTimer = undefined;
    this.sleepTimer = undefined;
    this.timedOut = false;
    this.heldLocal = undefined;
    this.flushing = undefined;
  }

  private handle(e: HistoryEvent): void {
    const id = String(e.eventId);
    if (this.heldLocal) {
      const held = this.heldLocal;
      this.heldLocal = undefined;
      const timer = e.timerStartedEventAttributes;
      if (timer && durationMs(timer.startToFireTimeout) === LOCAL_FLUSH_TIMER_MS) {
        this.timersInRun += 1;
        this.flushing = { timerId: timer.timerId ?? '', completion: held };
        return;
      }
      this.completion(held);
    }
    if (e.workflowExecutionStartedEventAttributes) return this.onStarted(decodeFirst<LoopWorkflowInput>(e.workflowExecutionStartedEventAttributes.input));
    if (e.workflowTaskStartedEventAttributes) return void this.taskStarts.set(id, eventTimeMs(e));
    if (e.workflowTaskCompletedEventAttributes) return this.onTaskCompleted(String(e.workflowTaskCompletedEventAttributes.startedEventId), eventTimeMs(e));
    if (e.activityTaskScheduledEventAttributes) return void this.activityTypes.set(id, e.activityTaskScheduledEventAttributes.activityType?.name ?? '');
    if (e.timerStartedEventAttributes) return this.onTimerStarted(e.timerStartedEventAttributes.timerId ?? '', durationMs(e.timerStartedEventAttributes.startToFireTimeout));
    if (e.markerRecordedEventAttributes) return this.onMarker(e);
    if (
      e.activityTaskCompletedEventAttributes ||
      e.activityTaskFailedEventAttributes ||
      e.activityTaskTimedOutEventAttributes ||
      e.timerFiredEventAttributes ||
      e.workflowExecutionCancelRequestedEventAttributes ||
      childOutcome(e)
    ) {
      this.queue.push(e);
      return;
    }
    this.onClose(e);
  }

  private onStarted(input: LoopWorkflowInput | undefined): void {
    if (!input?.definition) {
      this.warnings.push('the workflow input is not a loop definition');
      return;
    }
    if (this.input) return; // a continued run: the chain's own snapshot carries on
    this.input = input;
    if (input.child) {
      const started = childStart(input.definition, input.child);
      if ('error' in started) this.childError = started.error;
      else this.effective = { definition: started.definition, inherited: { captured: started.captured, dataContext: started.dataContext } };
    }
    if (input.resume) {
      // The chain's earlier runs are gone (retention): start from the carried snapshot.
      this.snapshot = input.resume.snapshot;
      this.effect = input.resume.command;
      this.warnings.push('the history starts after a continue-as-new; earlier events are not available');
    } else this.pendingStart = input.continueFrom ? 'resume' : 'start';
  }

  /** A workflow task processes what arrived before it started, at the time it started. */
  private onTaskCompleted(startedEventId: string, fallback: number): void {
    const now = this.taskStarts.get(startedEventId) ?? fallback;
    const def = this.definition;
    if (this.pendingStart && def) {
      const from = this.input?.continueFrom;
      if (this.childError !== undefined) this.apply(failedStart(def, now, this.childError), now);
      else this.apply(this.pendingStart === 'resume' && from ? resume(def, from.snapshot, now, from.runId) : start(def, now, this.effective?.inherited ?? {}), now);
      this.pendingStart = undefined;
    }
    const due = this.queue.filter((q) => Number(String(q.eventId)) < Number(startedEventId));
    this.queue = this.queue.filter((q) => !due.includes(q));
    // The deadline wins over anything else this task delivers: its promise settles in fewer
    // microtask hops than an action's (observed with a flush timer firing alongside it).
    if (this.deadlineTimer !== undefined && due.some((q) => q.timerFiredEventAttributes?.timerId === this.deadlineTimer)) this.timedOut = true;
    for (const e of due) this.process(e, now);
  }

  private onTimerStarted(timerId: string, ms: number): void {
    this.timersInRun += 1;
    // The loop-level timeout's timer is the first one each run creates, before any effect.
    if (this.timersInRun === 1 && this.definition?.timeout !== undefined) {
      this.deadlineTimer = timerId;
      return;
    }
    // A sub-loop state's `timeout:` runs while its child does.
    if (this.effect?.type === 'run_loop' && this.effect.input.timeout_s !== undefined && ms === this.effect.input.timeout_s * 1000 && !this.subloopTimer) {
      this.subloopTimer = { id: timerId, fired: false };
      return;
    }
    // A backoff, retry or maintain delay; other timers (the 1 ms local-activity flush) are not
    // effects. (A delay of exactly 1 ms right after a local action would be taken for a flush.)
    if (this.effect?.type === 'sleep' && Math.abs(this.effect.ms - ms) < 1 && this.sleepTimer === undefined) this.sleepTimer = timerId;
  }

  private onMarker(e: HistoryEvent): void {
    const attrs = e.markerRecordedEventAttributes!;
    if (attrs.markerName !== 'core_local_activity' || this.timedOut) return;
    const details = (attrs.details ?? {}) as Record<string, Parameters<typeof decodeFirst>[0]>;
    const data = decodeFirst<LocalActivityMarkerData>(details.data);
    const now = timestampMs(data?.complete_time) ?? eventTimeMs(e);
    if (attrs.failure && isCancelledFailure(attrs.failure)) return;
    const outcome = attrs.failure ? { error: failureMessages(attrs.failure) } : { result: decodeFirst(details.result) };
    this.heldLocal = { type: data?.activity_type ?? 'runAction', outcome, now };
  }

  private process(e: HistoryEvent, now: number): void {
    if (e.workflowExecutionCancelRequestedEventAttributes) {
      this.cancelRequested = true;
      return; // the run's result says how it ended
    }
    const fired = e.timerFiredEventAttributes;
    if (fired) {
      if (fired.timerId === this.deadlineTimer) this.timedOut = true;
      else if (this.subloopTimer && fired.timerId === this.subloopTimer.id) this.subloopTimer.fired = true;
      else if (this.flushing && fired.timerId === this.flushing.timerId) {
        const { completion } = this.flushing;
        this.flushing = undefined;
        if (!this.timedOut) this.completion({ ...completion, now });
      } else if (fired.timerId === this.sleepTimer && this.effect?.type === 'sleep' && !this.timedOut) {
        this.sleepTimer = undefined;
        this.apply(step(this.definition!, this.snapshot!, { type: 'sleep_done', now }), now);
      }
      return;
    }
    if (this.timedOut) return; // the workflow stopped taking results when the deadline fired
    const child = childOutcome(e);
    // A child cancelled because this run was stopped: the run's own end follows.
    if (child && this.cancelRequested && e.childWorkflowExecutionCanceledEventAttributes) return;
    if (child) return this.onChildClosed(child, now);
    const done = e.activityTaskCompletedEventAttributes;
    const failed = e.activityTaskFailedEventAttributes;
    const timedOut = e.activityTaskTimedOutEventAttributes;
    const scheduled = String((done ?? failed ?? timedOut)?.scheduledEventId);
    const type = this.activityTypes.get(scheduled) ?? 'runAction';
    if (done) this.completion({ type, outcome: { result: decodeFirst(done.result) }, now });
    else if (failed) this.completion({ type, outcome: { error: ['Activity task failed', ...failureMessages(failed.failure)] }, now });
    else if (timedOut) this.completion({ type, outcome: { error: ['Activity task timed out', ...failureMessages(timedOut.failure)] }, now });
  }

  /** An action or LLM activity's outcome, as the workflow turns it into a core event. */
  private completion({ type, outcome, now }: Completion): void {
    if (!this.snapshot || !this.definition) return;
    // The workflow's errorText(): the first four messages of the error chain.
    const text = outcome.error ? outcome.error.slice(0, 4).join(': ') || 'unknown error' : '';
    let event: StepEvent;
    if (type === 'loadSubloop') {
      // A loaded child only starts the child workflow; a child that cannot load fails the state.
      const loaded = outcome.result as { error?: string } | undefined;
      const error = outcome.error ? `could not load sub-loop: ${text}` : loaded?.error;
      if (error !== undefined) this.apply(step(this.definition, this.snapshot, { type: 'loop_failed', error, now }), now);
      return;
    }
    if (type === 'evaluateLlm') {
      const result: EvalResult = outcome.error ? { verdict: 'error', details: { error: `LLM evaluation failed: ${text}` } } : (outcome.result as EvalResult);
      event = { type: 'llm_done', result, now };
    } else {
      event = outcome.error ? { type: 'action_failed', error: `action could not run: ${text}`, now } : { type: 'action_done', result: outcome.result as ActionResult, now };
    }
    this.apply(step(this.definition, this.snapshot, event), now);
  }

  private onChildClosed(child: NonNullable<ReturnType<typeof childOutcome>>, now: number): void {
    if (!this.snapshot || !this.definition) return;
    const input = this.effect?.type === 'run_loop' ? this.effect.input : undefined;
    const limited = this.subloopTimer?.fired && input?.timeout_s !== undefined ? input.timeout_s : undefined;
    this.subloopTimer = undefined;
    let event: StepEvent;
    if ('result' in child) {
      const result = limited !== undefined && child.result.terminated_by === 'cancelled' ? { ...child.result, error: subloopTimeoutError(limited) } : child.result;
      event = { type: 'loop_done', result, now };
    } else if (limited !== undefined) {
      event = { type: 'loop_failed', error: subloopTimeoutFailure(input!.loop, limited), now };
    } else {
      event = { type: 'loop_failed', error: `sub-loop "${input?.loop ?? '?'}" failed: ${child.error}`, now };
    }
    this.apply(step(this.definition, this.snapshot, event), now);
  }

  private apply(out: StepOutput, now: number): void {
    this.snapshot = out.snapshot;
    const ts = new Date(now).toISOString();
    for (const command of out.commands) {
      if (command.type !== 'emit') {
        this.effect = command;
        continue;
      }
      const event: TimedEvent = { ...command.event, ts };
      this.events.push(event);
      this.onEvent?.(event);
    }
  }

  private onClose(e: HistoryEvent): void {
    const completed = e.workflowExecutionCompletedEventAttributes;
    if (completed) return this.finish(decodeFirst<ExecutionResult>(completed.result));
    const failed = e.workflowExecutionFailedEventAttributes;
    // `failOnNonTerminal` (schedules): the loop's result travels as the failure's details.
    const app = failed?.failure?.applicationFailureInfo;
    if (app?.type === LOOP_FAILED) return this.finish(decodeFirst<ExecutionResult>(app.details));
    if (failed) this.end = { status: 'failed', reason: failureMessages(failed.failure).join(': ') || 'workflow failed' };
    const terminated = e.workflowExecutionTerminatedEventAttributes;
    if (terminated) this.end = { status: 'terminated', reason: terminated.reason || 'terminated' };
    if (e.workflowExecutionTimedOutEventAttributes) this.end = { status: 'timed_out', reason: 'the workflow execution timed out' };
    if (e.workflowExecutionCanceledEventAttributes) this.end = { status: 'canceled', reason: 'the workflow was cancelled' };
  }

  /** The run completed: a cancellation or timeout the core has not seen yet ends it here. */
  private finish(result: ExecutionResult | undefined): void {
    if (!result) {
      this.warnings.push('the workflow completed without a result');
      return;
    }
    this.end = { status: 'completed', result };
    const snap = this.snapshot;
    const def = this.definition;
    if (snap && def && snap.phase !== 'done') {
      const now = snap.startedAtMs + result.duration_ms;
      if (result.terminated_by === 'cancelled') this.apply(step(def, snap, { type: 'cancel', now }), now);
      else if (result.terminated_by === 'timeout') this.apply(step(def, snap, { type: 'timeout', now }), now);
    }
    const outcome = this.snapshot?.outcome;
    if (!outcome || outcome.terminated_by !== result.terminated_by || outcome.final_state !== result.final_state || outcome.steps !== result.steps) {
      this.warnings.push(
        `the rebuilt events end ${outcome ? `${outcome.terminated_by} in ${outcome.final_state} after ${outcome.steps} steps` : 'without an outcome'}, ` +
          `but the run ended ${result.terminated_by} in ${result.final_state} after ${result.steps} steps`,
      );
    }
  }
}

/**
 * `loopWorkflow`: interprets a loop definition by driving the pure core's `transition()`.
 *
 * The workflow owns time and durability: the loop-level timeout is one durable timer, backoff and
 * maintain delays are durable sleeps, actions and LLM evaluations are activities (retried only on
 * infrastructure faults), and long runs continue-as-new with their snapshot before the history
 * grows past Temporal's limits. Everything it knows is in `snapshot`, answered by `statusQuery`.
 */
import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  condition,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  patched,
  proxySinks,
  setHandler,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { closing } from '../fsm/run/outcome.js';
import { childStart } from '../fsm/run/subloop.js';
import { transition } from '../fsm/run/transition.js';
import { noteHostChange } from '../fsm/run/notes.js';
import type { DoneSnapshot, FinishEffect, Transition } from '../fsm/run/snapshot.js';
import { begin } from './begin-run.js';
import { historyFull } from './history-limits.js';
import { fanoutHooks } from './fanout-hooks.js';
import { effectRunner, TIMED_OUT } from './perform-effect.js';
import { BurstStops, feedBurst, isBurst } from './burst.js';
import { Placement } from './placement.js';
import { showFanout, statusOf, statusReporter } from './run-status.js';
import { installControl } from './control-handlers.js';
import { SCOPE_BUSY } from './scope-lock-definitions.js';
import { ScopeLease } from './scope-lease.js';
import { RunTrace } from './run-trace.js';
import { HumanDesk } from './human-desk.js';
import { itemLedger } from './item-ledger.js';
import { itemPauses } from './item-pauses.js';
import {
  LOOP_FAILED,
  resumeHandoffUpdate,
  snapshotQuery,
  statusQuery,
  type LoopRunResult,
  type LoopSinks,
  type FanoutStatus,
  type LoopStatus,
  type LoopWorkflowInput,
} from './definitions.js';

/** A stopped run's memo carries its captured values when their JSON is at most this long. */
const MAX_MEMO_CAPTURED_CHARS = 16 * 1024;

const { loopEvents } = proxySinks<LoopSinks>();

/**
 * Close the workflow for a finished run (fsm/run/outcome.ts): its result with the final snapshot, a
 * non-retryable `LoopFailed` failure carrying the same, or — stopped — Canceled. A cancellation
 * carries no details, so a stopped run leaves its result in its memo as `outcome` (captured values
 * beyond MAX_MEMO_CAPTURED_CHARS only by name: `resume` replays the history for them).
 */
function settle(snapshot: DoneSnapshot, input: LoopWorkflowInput): LoopRunResult {
  const result: LoopRunResult = { ...snapshot.outcome, snapshot };
  const close = closing(snapshot.outcome, { child: input.child !== undefined });
  if (close.kind === 'fail') throw ApplicationFailure.nonRetryable(close.message, LOOP_FAILED, result);
  if (close.kind === 'cancel') {
    const outcome = snapshot.outcome;
    // Every list of runs carries the memo: large captured values are named, not copied.
    const small = JSON.stringify(outcome.captured).length <= MAX_MEMO_CAPTURED_CHARS;
    upsertMemo({
      outcome: small
        ? outcome
        : { ...outcome, captured: Object.fromEntries(Object.keys(outcome.captured).map((k) => [k, null])) },
    });
    throw new CancelledFailure(`loop ${outcome.loop} stopped in state "${outcome.final_state}"`);
  }
  return result;
}

/** The patch marking the result of a run stopped while it waited for its scopes. */
const STOPPED_WAITING_PATCH = 'stopped-waiting-for-scopes';

/** A run stopped before it held its scopes: its result names the scopes it waited for. */
function stoppedWaiting(t: Transition, scopes: string[]): Transition {
  const snapshot = t.snapshot as DoneSnapshot;
  if (snapshot.outcome.terminated_by !== 'cancelled') return t;
  return {
    ...t,
    snapshot: { ...snapshot, outcome: { ...snapshot.outcome, stopped_waiting_for: scopes } },
  } as Transition;
}

export async function loopWorkflow(input: LoopWorkflowInput): Promise<LoopRunResult> {
  // A scope lock is held by top-level runs that ask for one (sub-loops run under their parent's).
  // Runs without one issue exactly the commands they always did.
  const lease =
    input.lock && !input.child
      ? new ScopeLease(input.lock, input.resume !== undefined, input.options.localScopeRequest === true)
      : undefined;
  if (!lease) return runLoop(input, undefined);
  try {
    const result = await runLoop(input, lease);
    await lease.release();
    return result;
  } catch (err) {
    // Continuing as new is the same run, keeping its scopes; a denied run holds nothing.
    if (!(err instanceof ContinueAsNew) && !(err instanceof ApplicationFailure && err.type === SCOPE_BUSY))
      await lease.release();
    throw err;
  }
}

async function runLoop(input: LoopWorkflowInput, lease: ScopeLease | undefined): Promise<LoopRunResult> {
  const instanceId = workflowInfo().workflowId;
  // A sub-loop runs with what its parent bound (the same on every continue-as-new: deterministic).
  const childStarted = input.child ? childStart(input.definition, input.child) : undefined;
  const def = childStarted && 'definition' in childStarted ? childStarted.definition : input.definition;
  /** Where the run is: the last transition (its snapshot, its effect, its events not yet delivered). */
  let at: Transition = input.resume
    ? // Continued as new: the same run, its snapshot and the effect it was about to carry out.
      ({ snapshot: input.resume.snapshot, effect: input.resume.effect, events: [] } as Transition)
    : begin(def, input, childStarted, Date.now());

  // Where actions run (the checkout's queue, a pinned host's, or a portable run's claimed checkout).
  // A portable run's checkout moving to another host is a fact of its event stream.
  const placement = new Placement(input, (change) => {
    if (at.snapshot.status !== 'running') return;
    const noted = noteHostChange(at.snapshot, change, Date.now());
    at = { ...at, snapshot: noted.snapshot } as Transition;
    loopEvents.emit(noted.event);
  });

  setHandler(snapshotQuery, () => at.snapshot);
  /** A parallel state under way (workflows/run-fanout.ts), for the status query. */
  let fanoutStatus: FanoutStatus | undefined;
  /** Set by the resumeHandoff update; read by the `await_handoff` effect. */
  let handoffResumed = false;
  setHandler(
    resumeHandoffUpdate,
    () => {
      handoffResumed = true;
      return { state: at.snapshot.current };
    },
    {
      validator: () => {
        if (at.snapshot.phase !== 'handoff' || handoffResumed)
          throw new Error(
            `run ${instanceId} is not waiting on a handoff (state "${at.snapshot.current}", phase ${at.snapshot.phase})`,
          );
      },
    },
  );
  // The run's spans (workflows/run-trace.ts): no-ops unless the worker traces.
  const spans = new RunTrace(def.name, instanceId, input);
  const humans = new HumanDesk(def, instanceId, () => at.snapshot, input.options.approvalEdit === true);
  // An item of a fan-out with a shared budget reports its spend to the parent (workflows/item-ledger.ts).
  const ledger = itemLedger(
    input,
    () => at,
    (t) => (at = t),
  );
  const pauses = itemPauses(input);
  setHandler(statusQuery, (): LoopStatus => ({
    ...statusOf(def, keptControls.planned(), instanceId),
    ...(lease ? { lock: lease.status() } : {}),
    ...(placement.waitingFor ? { waiting_for: placement.waitingFor } : {}),
    ...(placement.current.host ? { host: placement.current.host } : {}),
    ...(fanoutStatus ? { fanout: fanoutStatus } : {}),
  }));

  const report = statusReporter(def, input, instanceId, () => at.snapshot);
  // A pause or steer that reached the run during a burst acts at its end (workflows/burst.ts feedBurst).
  const controlsAtEnd = input.options.controlsAfterBursts === true;
  let bursting = false;
  // `ll-loop pause`, `unpause`, `steer`.
  const keptControls = installControl({
    def,
    input,
    instanceId,
    get: () => at,
    set: (t) => (at = t),
    report,
    begun: () => !lease || input.resume !== undefined || lease.status().state === 'held',
    bursting: () => controlsAtEnd && bursting,
  });

  /** Whether `at`'s events are a burst's (their trace is folded: workflows/burst-trace.ts). */
  let fedBurst = false;
  /** Hand the last transition's events to the sink (each once). */
  const deliver = (): void => {
    for (const event of at.events) loopEvents.emit(event);
    spans.observe(at.events, fedBurst);
    fedBurst = false;
    at = { ...at, events: [] };
  };

  if (lease && !input.resume) {
    // The run starts once it holds its scopes: its clock, and so its loop timeout, start then.
    const granted = await lease.acquire();
    at = begin(def, input, childStarted, Date.now());
    if (!granted) {
      // Stopped while waiting: it has left the queue; it ends as stopped, like any stopped run.
      if (!isFinished(at)) at = transition(def, at.snapshot, { type: 'cancel', now: Date.now() });
      // Its result says it never held its scopes (runs before this marker replay without it).
      if (isFinished(at) && patched(STOPPED_WAITING_PATCH)) at = stoppedWaiting(at, lease.status().scopes);
      deliver();
      report();
      if (isFinished(at)) return settle(at.snapshot, input);
      throw new CancelledFailure('stopped while waiting for its scopes');
    }
  }

  // One durable timer bounds the whole run (loop-level `timeout`), across continue-as-new.
  const deadline = def.timeout === undefined ? undefined : at.snapshot.startedAtMs + def.timeout * 1000;
  const timeoutScope = new CancellationScope();
  const timedOut: Promise<typeof TIMED_OUT> =
    deadline === undefined
      ? new Promise(() => undefined)
      : timeoutScope.run(() => sleep(Math.max(1, deadline - Date.now()))).then(() => TIMED_OUT);

  const burstStops = new BurstStops(input.options.stopInBursts === true);
  const perform = effectRunner({
    input,
    watchStop: () => burstStops.watch,
    bursting: (on) => (bursting = on),
    instanceId,
    placement,
    timedOut,
    ...(deadline === undefined ? {} : { deadline }),
    def,
    snapshot: () => at.snapshot,
    handoff: async () => {
      await condition(() => handoffResumed);
      handoffResumed = false;
    },
    released: () => condition(() => at.snapshot.status !== 'running' || at.snapshot.pause === undefined),
    human: (work) => humans.wait(work, placement),
    fanout: fanoutHooks({
      input,
      at: () => at,
      setAt: (next) => (at = next),
      emit: (event) => loopEvents.emit(event),
      status: (status) => {
        fanoutStatus = status;
        if (status) showFanout(def, at.snapshot, instanceId, status);
      },
      continueAsNew: async (progress) => {
        timeoutScope.cancel();
        spans.end();
        return continueAsNew<typeof loopWorkflow>({
          ...input,
          options: placement.carried(),
          resume: { snapshot: at.snapshot, effect: at.effect, fanout: progress },
        });
      },
    }),
  });

  try {
    for (;;) {
      deliver();
      report();
      if (isFinished(at)) {
        await placement.release();
        return settle(at.snapshot, input);
      }
      const { snapshot, effect } = at;
      if (historyFull(input)) {
        timeoutScope.cancel();
        spans.end();
        await continueAsNew<typeof loopWorkflow>({
          ...input,
          options: placement.carried(),
          resume: { snapshot, effect },
        });
      }
      await pauses?.beforeEffect(effect);
      if (effect.type === 'run_action' && effect.input.kind === 'prompt') spans.agentCall(effect.input.model);
      const fact = await spans.within(() => perform(effect));
      // What the agent used (an action followed by quick actions in its activity is a burst's first fact).
      const done = isBurst(fact) ? fact.outcome.facts[0] : fact.type === 'action_done' ? fact : undefined;
      if (done?.result.usage) spans.agentCall(undefined, done.result.usage);
      // Controls kept while a burst ran that gave no results to feed act now, before its fact.
      if (!isBurst(fact)) keptControls.applyNow();
      // The snapshot as it is now: a note made during the effect (host_change) took a number.
      at = isBurst(fact)
        ? feedBurst(def, at, fact.outcome, controlsAtEnd, keptControls.take())
        : transition(def, at.snapshot as typeof snapshot, fact);
      fedBurst = isBurst(fact);
      // The burst saw the run's stop: its events out first, then the stop is let in (thrown below).
      // Not when the run has ended meanwhile (the loop deadline, which cancels a burst too).
      if (isBurst(fact) && fact.outcome.stopped_at !== undefined && !isFinished(at)) {
        deliver();
        report();
        await burstStops.letStopIn();
      }
      ledger?.report();
      pauses?.report(at);
    }
  } catch (err) {
    if (!isCancellation(err) || isFinished(at)) throw err;
    // Stopped from outside: record the end like any other, keeping state and captured values.
    at = transition(def, at.snapshot, { type: 'cancel', now: Date.now() });
    deliver();
    report();
    if (!isFinished(at)) throw err;
    await CancellationScope.nonCancellable(() => placement.release());
    return settle(at.snapshot, input);
  }
}

function isFinished(t: Transition): t is Extract<Transition, { effect: FinishEffect }> {
  return t.effect.type === 'finish';
}

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
  proxySinks,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { loopEnvNames } from '../fsm/env-names.js';
import { closing, outcomeOf, type LoopOutcome } from '../fsm/outcome.js';
import { upgradeSnapshot } from '../fsm/snapshot-upgrade.js';
import { childStart } from '../fsm/subloop.js';
import { llmReplyFact } from '../fsm/facts.js';
import { budgetDetails, budgetStatus } from './budget-status.js';
import { transition } from '../fsm/transition.js';
import { failureOf } from './error-text.js';
import { noteHostChange } from '../fsm/notes.js';
import { Placement } from './placement.js';
import { actionActivity, diffStatActivity, isLocal, llmActivity, sleepSummary } from './activity-proxies.js';
import { runChild } from './run-child.js';
import { SCOPE_BUSY } from './scope-lock-definitions.js';
import { ScopeLease } from './scope-lease.js';
import type { LoopDefinition } from '../fsm/schema.js';
import type {
  DoneSnapshot,
  FinishEffect,
  LlmReply,
  RateLimitPause,
  RunEvent,
  Snapshot,
  Transition,
  WorkEffect,
} from '../fsm/snapshot.js';
import type { ActionResult, EvalResult, RunActionInput } from '../fsm/types.js';
import {
  LOOP_FAILED,
  resumeHandoffUpdate,
  snapshotQuery,
  statusQuery,
  type LoopRunResult,
  type LoopSinks,
  type LoopStatus,
  type LoopWorkflowInput,
} from './definitions.js';

/** Continue as new well before Temporal's ~51,200-event / 50 MB history limits. */
const MAX_HISTORY_EVENTS = 20_000;
const MAX_HISTORY_BYTES = 20 * 1024 * 1024;
/** A stopped run's memo carries its captured values when their JSON is at most this long. */
const MAX_MEMO_CAPTURED_CHARS = 16 * 1024;

/**
 * Local activities are recorded when the workflow task completes. After this much local-activity
 * work (or this many actions) the workflow takes a 1 ms durable timer, which completes the task
 * and records them, so a crash re-runs at most this much completed quick work.
 */
const LOCAL_FLUSH_AFTER_MS = 1000;
const LOCAL_FLUSH_AFTER_ACTIONS = 100;

const { loopEvents } = proxySinks<LoopSinks>();
const TIMED_OUT = Symbol('timed-out');

/**
 * Close the workflow for a finished run (fsm/outcome.ts): its result with the final snapshot, a
 * non-retryable `LoopFailed` failure carrying the same, or — stopped — Canceled. A cancellation
 * carries no details, so a stopped run leaves its result in its memo as `outcome` (captured values
 * beyond MAX_MEMO_CAPTURED_CHARS only by name: `resume` replays the history for them).
 */
function settle(snapshot: DoneSnapshot, input: LoopWorkflowInput): LoopRunResult {
  const result: LoopRunResult = { ...snapshot.outcome, snapshot };
  const close = closing(snapshot.outcome, {
    failOnNonTerminal: input.options.failOnNonTerminal,
    closeAsOutcome: input.options.closeAsOutcome,
    child: input.child !== undefined,
  });
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

/** The event for an LLM activity's answer; histories of 0.1.0 hold an already judged result. */
function llmEvent(reply: LlmReply | EvalResult, now: number): RunEvent {
  if ('verdict' in reply) return { type: 'llm_done', result: reply, now };
  return llmReplyFact(reply, now);
}

export async function loopWorkflow(input: LoopWorkflowInput): Promise<LoopRunResult> {
  // A scope lock is held by top-level runs that ask for one (sub-loops run under their parent's).
  // Runs without one issue exactly the commands they always did.
  const lease = input.lock && !input.child ? new ScopeLease(input.lock, input.resume !== undefined) : undefined;
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
  const localMaxS = input.options.localActivityMaxTimeoutS ?? 0;
  // A sub-loop runs with what its parent bound (the same on every continue-as-new: deterministic).
  const childStarted = input.child ? childStart(input.definition, input.child) : undefined;
  const def = childStarted && 'definition' in childStarted ? childStarted.definition : input.definition;
  // Runs started by this release ask the worker to mask every variable the loop names (older
  // histories lack the option: their activity inputs stay as they were).
  const maskEnv = input.options.maskLoopEnv ? { mask_env: loopEnvNames(def) } : {};
  const checkAnswers = input.options.checkAnswers ? { check_schema: true } : {};
  // Runs started by 0.5.0 and later pause on rate limits (fsm/rate-limit.ts); older ones judge them as they did.
  const detectLimits = input.options.pauseOnRateLimit ? { detect_rate_limits: true } : {};
  // Runs started by this release act on stdout signals (fsm/on-signal.ts); older ones read them as plain output.
  const threshold = def.config?.handoff_threshold;
  const detectSignals = input.options.stdoutSignals
    ? { detect_signals: true, ...(threshold === undefined ? {} : { handoff_threshold: threshold }) }
    : {};
  /** Where the run is: the last transition (its snapshot, its effect, its events not yet delivered). */
  let at: Transition = input.resume
    ? // Continued as new: the same run, its snapshot and the effect it was about to carry out.
      ({
        snapshot: upgradeSnapshot(input.resume.snapshot),
        effect: (input.resume.effect ?? input.resume.command)!,
        events: [],
      } as Transition)
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
  setHandler(statusQuery, (): LoopStatus => ({
    ...statusOf(def, at.snapshot, instanceId),
    ...(lease ? { lock: lease.status() } : {}),
    ...(placement.waitingFor ? { waiting_for: placement.waitingFor } : {}),
    ...(placement.current.host ? { host: placement.current.host } : {}),
  }));

  let lastReported = '';
  const report = (): void => {
    const snapshot = at.snapshot;
    const key = `${snapshot.current}/${snapshot.iteration}/${snapshot.phase}`;
    if (key === lastReported) return;
    lastReported = key;
    const verdict = snapshot.result ? ` · last verdict ${snapshot.result.verdict}` : '';
    const spend = budgetDetails(def, snapshot);
    const paused =
      snapshot.phase === 'rate_limited' && snapshot.rateLimit
        ? ` until ${new Date(snapshot.rateLimit.resumes_at_ms).toISOString()} (${snapshot.rateLimit.kind.replace('_', ' ')}: ${snapshot.rateLimit.message})`
        : snapshot.phase === 'handoff'
          ? ` · waiting for \`ll-loop resume ${instanceId}\``
          : '';
    setCurrentDetails(
      `**${snapshot.current}** · pass ${snapshot.iteration}/${def.max_iterations} · ${snapshot.phase}${paused}${verdict}${spend}`,
    );
    // The snapshot once, not beside copies of its parts: the worker shapes the state file.
    loopEvents.state({ loop: def.name, snapshot });
    if (input.options.searchAttributes) {
      upsertSearchAttributes({
        LoopState: [snapshot.current],
        LoopStatus: [loopStatusOf(snapshot, input.options.closeAsOutcome === true)],
      });
    }
  };

  /** Hand the last transition's events to the sink (each once). */
  const deliver = (): void => {
    for (const event of at.events) loopEvents.emit(event);
    at = { ...at, events: [] };
  };

  if (lease && !input.resume) {
    // The run starts once it holds its scopes: its clock, and so its loop timeout, start then.
    const granted = await lease.acquire();
    at = begin(def, input, childStarted, Date.now());
    if (!granted) {
      // Stopped while waiting: it has left the queue; it ends as stopped, like any stopped run.
      if (!isFinished(at)) at = transition(def, at.snapshot, { type: 'cancel', now: Date.now() });
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

  const unflushed = { actions: 0, ms: 0 };
  /** Record pending local-activity results in history (see LOCAL_FLUSH_AFTER_MS). */
  const flushLocal = async (result: ActionResult, local: boolean): Promise<void> => {
    if (!local) {
      unflushed.actions = 0;
      unflushed.ms = 0;
      return;
    }
    unflushed.actions += 1;
    unflushed.ms += result.duration_ms;
    if (unflushed.actions >= LOCAL_FLUSH_AFTER_ACTIONS || unflushed.ms >= LOCAL_FLUSH_AFTER_MS) {
      unflushed.actions = 0;
      unflushed.ms = 0;
      await sleep(1);
    }
  };

  /** Run one effect under the loop deadline; the result is the fact to feed back to the core. */
  const perform = async (work: WorkEffect): Promise<RunEvent> => {
    const scope = new CancellationScope();
    const running = scope.run(async (): Promise<RunEvent> => {
      switch (work.type) {
        case 'run_action': {
          try {
            const local = !placement.remote && isLocal(work.input, localMaxS);
            const result = await placement.run((place) => {
              const full: RunActionInput = {
                ...work.input,
                instanceId,
                cwd: place.cwd,
                ...maskEnv,
                ...(work.input.kind === 'prompt' ? detectLimits : {}),
                ...(work.input.kind === 'mcp' ? {} : detectSignals),
              };
              return actionActivity(full, local, placement.activityOptions())(full);
            });
            await flushLocal(result, local);
            return { type: 'action_done', result, now: Date.now() };
          } catch (err) {
            if (isCancellation(err)) throw err;
            return { type: 'action_failed', failure: failureOf(err), now: Date.now() };
          }
        }
        case 'evaluate_llm': {
          try {
            const reply = await placement.run((place) =>
              llmActivity(
                work.input.timeout_s,
                work.input.state,
                placement.activityOptions(),
              )({ ...work.input, instanceId, cwd: place.cwd, ...maskEnv, ...checkAnswers, ...detectLimits }),
            );
            return llmEvent(reply, Date.now());
          } catch (err) {
            if (isCancellation(err)) throw err;
            return { type: 'llm_failed', failure: failureOf(err), now: Date.now() };
          }
        }
        case 'diff_stat': {
          try {
            const reply = await placement.run((place) =>
              diffStatActivity(work.input.state, placement.activityOptions())({ ...work.input, cwd: place.cwd }),
            );
            const now = Date.now();
            return 'stat' in reply
              ? { type: 'diff_stat_done', stat: reply.stat, now }
              : { type: 'diff_stat_error', error: reply.error, now };
          } catch (err) {
            if (isCancellation(err)) throw err;
            return { type: 'diff_stat_failed', failure: failureOf(err), now: Date.now() };
          }
        }
        case 'sleep':
          // A rate limit's pause ends at an instant (continued as new mid-pause, it waits only the rest).
          await sleep('until_ms' in work ? Math.max(1, work.until_ms - Date.now()) : work.ms, {
            summary: sleepSummary(work, at.snapshot),
          });
          return { type: 'sleep_done', now: Date.now() };
        case 'await_handoff':
          // No timer of its own: the loop's timeout and `ll-loop stop` still end the wait.
          await condition(() => handoffResumed);
          handoffResumed = false;
          return { type: 'handoff_resumed', now: Date.now() };
        case 'run_loop':
          // A sub-loop runs where its parent's actions run (a portable parent's claimed checkout).
          await placement.ensureClaimed();
          return runChild(
            { ...input, options: { ...placement.carried(), portable: undefined } },
            work.input,
            instanceId,
          );
      }
    });
    const winner = await Promise.race([running, timedOut]);
    if (winner !== TIMED_OUT) return winner;
    scope.cancel();
    await running.catch(() => undefined); // WAIT_CANCELLATION_COMPLETED: the process group is gone
    return { type: 'timeout', now: Date.now() };
  };

  try {
    for (;;) {
      deliver();
      report();
      if (isFinished(at)) {
        await placement.release();
        return settle(at.snapshot, input);
      }
      const { snapshot, effect } = at;
      const info = workflowInfo();
      if (
        info.continueAsNewSuggested ||
        info.historyLength > (input.options.historyEventLimit ?? MAX_HISTORY_EVENTS) ||
        info.historySize > MAX_HISTORY_BYTES
      ) {
        timeoutScope.cancel();
        await continueAsNew<typeof loopWorkflow>({
          ...input,
          options: placement.carried(),
          resume: { snapshot, effect },
        });
      }
      const fact = await perform(effect);
      // The snapshot as it is now: a note made during the effect (host_change) took a number.
      at = transition(def, at.snapshot as typeof snapshot, fact);
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

/** The `LoopStatus` search attribute: the outcome (0.4.0 and later), or `running`/`done` as before; `rate_limited` while paused by one. */
function loopStatusOf(snapshot: Snapshot, outcome: boolean): LoopOutcome | 'done' | 'rate_limited' | 'paused' {
  if (snapshot.status === 'running')
    return snapshot.phase === 'rate_limited' ? 'rate_limited' : snapshot.phase === 'handoff' ? 'paused' : 'running';
  return outcome ? outcomeOf(snapshot.outcome) : 'done';
}

function isFinished(t: Transition): t is Extract<Transition, { effect: FinishEffect }> {
  return t.effect.type === 'finish';
}

/** The run's first transition: as a sub-loop that cannot start, continuing an earlier run, or fresh. */
function begin(
  def: LoopDefinition,
  input: LoopWorkflowInput,
  child: ReturnType<typeof childStart> | undefined,
  now: number,
): Transition {
  const start = { type: 'start', now } as const;
  if (child && 'error' in child) return transition(def, null, { ...start, error: child.error });
  const from = input.continueFrom;
  if (from) {
    const snapshot = withDataContext(upgradeSnapshot(from.snapshot), input.dataContext);
    return transition(def, null, {
      ...start,
      resumeFrom: { runId: from.runId, snapshot, ...(from.upgrade ? { upgrade: from.upgrade } : {}) },
    });
  }
  if (child)
    return transition(def, null, {
      ...start,
      inherited: {
        captured: child.captured,
        dataContext: child.dataContext,
        ...(child.budget ? { budget: child.budget } : {}),
      },
    });
  // `--context` values are data (input.dataContext, absent in runs of older releases).
  return transition(def, null, {
    ...start,
    ...(input.dataContext?.length ? { inherited: { dataContext: input.dataContext } } : {}),
  });
}

/** The snapshot with `keys` added to its data context keys (unchanged when there are none). */
function withDataContext(snapshot: Snapshot, keys: string[] | undefined): Snapshot {
  if (!keys?.length) return snapshot;
  return { ...snapshot, dataContext: [...new Set([...(snapshot.dataContext ?? []), ...keys])] };
}

function statusOf(def: LoopDefinition, snapshot: Snapshot, runId: string): LoopStatus {
  return {
    loop: def.name,
    state: snapshot.current,
    phase: snapshot.phase,
    iteration: snapshot.iteration,
    max_iterations: def.max_iterations,
    steps: snapshot.steps,
    last_verdict: snapshot.result?.verdict ?? null,
    started_at: snapshot.startedAt,
    started_at_ms: snapshot.startedAtMs,
    captured: Object.keys(snapshot.captured),
    result: snapshot.status === 'done' ? snapshot.outcome : null,
    semantics: snapshot.semantics,
    ...budgetStatus(def, snapshot),
    ...(snapshot.phase === 'rate_limited' && snapshot.rateLimit
      ? { rate_limited: rateLimitedStatus(snapshot.rateLimit) }
      : {}),
    ...(snapshot.phase === 'handoff' && snapshot.handoff
      ? {
          handoff: {
            state: snapshot.handoff.state,
            payload: snapshot.handoff.payload,
            since: new Date(snapshot.handoff.since_ms).toISOString(),
            resume: `ll-loop resume ${runId}`,
          },
        }
      : {}),
  };
}

function rateLimitedStatus(p: RateLimitPause): NonNullable<LoopStatus['rate_limited']> {
  return {
    source: p.source,
    kind: p.kind,
    message: p.message,
    since: new Date(p.since_ms).toISOString(),
    resumes_at: new Date(p.resumes_at_ms).toISOString(),
    pauses: p.pauses,
  };
}

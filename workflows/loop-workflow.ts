/**
 * `loopWorkflow`: interprets a loop definition by driving the pure core's `step()`.
 *
 * The workflow owns time and durability: the loop-level timeout is one durable timer, backoff and
 * maintain delays are durable sleeps, actions and LLM evaluations are activities (retried only on
 * infrastructure faults), and long runs continue-as-new with their snapshot before the history
 * grows past Temporal's limits. Everything it knows is in `snapshot`, answered by `statusQuery`.
 */
import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  proxySinks,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { LoopActivities } from './activity-types.js';
import { failedStart, resume, start, step } from '../fsm/step.js';
import { childStart } from '../fsm/subloop.js';
import { errorText } from './error-text.js';
import { runChild } from './run-child.js';
import type { Command, Snapshot, StepEvent, StepOutput } from '../fsm/snapshot.js';
import type { ActionResult, EvalResult, ExecutionResult, RunActionInput } from '../fsm/types.js';
import { LOOP_FAILED, snapshotQuery, statusQuery, type LoopSinks, type LoopStatus, type LoopWorkflowInput } from './definitions.js';

/** Grace beyond an action's own timeout before Temporal gives up on the activity. */
const ACTIVITY_TIMEOUT_SLACK_S = 60;
/** A worker that stops heartbeating for this long is presumed dead; the action is retried once. */
const HEARTBEAT_TIMEOUT = '30s';
/** Continue as new well before Temporal's ~51,200-event / 50 MB history limits. */
const MAX_HISTORY_EVENTS = 20_000;
const MAX_HISTORY_BYTES = 20 * 1024 * 1024;

/**
 * Local activities are recorded when the workflow task completes. After this much local-activity
 * work (or this many actions) the workflow takes a 1 ms durable timer, which completes the task
 * and records them, so a crash re-runs at most this much completed quick work.
 */
const LOCAL_FLUSH_AFTER_MS = 1000;
const LOCAL_FLUSH_AFTER_ACTIONS = 100;

const { loopEvents } = proxySinks<LoopSinks>();
const TIMED_OUT = Symbol('timed-out');

/** Quick shell actions (timeout at most `localMaxS`) run as local activities. */
function isLocal(input: RunActionInput, localMaxS: number): boolean {
  return input.kind === 'shell' && input.timeout_s <= localMaxS;
}

function actionActivity(input: RunActionInput, localMaxS: number): (input: RunActionInput) => Promise<ActionResult> {
  const common = {
    startToCloseTimeout: `${input.timeout_s + ACTIVITY_TIMEOUT_SLACK_S}s`,
    // A dead worker's action is re-run at most once (at-least-once delivery of actions).
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: ['ActionSetupError'] },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
  if (isLocal(input, localMaxS)) {
    return proxyLocalActivities<LoopActivities>(common).runAction;
  }
  return proxyActivities<LoopActivities>({ ...common, heartbeatTimeout: HEARTBEAT_TIMEOUT, summary: input.state }).runAction;
}

function llmActivity(timeoutS: number, state: string): (input: Parameters<LoopActivities['evaluateLlm']>[0]) => Promise<EvalResult> {
  return proxyActivities<LoopActivities>({
    startToCloseTimeout: `${timeoutS + ACTIVITY_TIMEOUT_SLACK_S}s`,
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: { maximumAttempts: 3 },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    summary: `evaluate ${state}`,
  }).evaluateLlm;
}

/**
 * The workflow's outcome: the result, or — with `failOnNonTerminal` — a non-retryable failure for
 * a run that ended by a limit, a timeout, an error or in a `failure: true` terminal (not when cancelled).
 */
function settle(result: ExecutionResult, failOnNonTerminal: boolean | undefined): ExecutionResult {
  const failed = result.terminated_by !== 'cancelled' && (result.terminated_by !== 'terminal' || result.failure);
  if (!failOnNonTerminal || !failed) return result;
  const why = result.error ?? (result.failure ? `ended in failure state "${result.final_state}"` : `${result.terminated_by} reached in state "${result.final_state}"`);
  throw ApplicationFailure.nonRetryable(`loop ${result.loop}: ${why}`, LOOP_FAILED, result);
}

export async function loopWorkflow(input: LoopWorkflowInput): Promise<ExecutionResult> {
  const { cwd } = input.options;
  const instanceId = workflowInfo().workflowId;
  const localMaxS = input.options.localActivityMaxTimeoutS ?? 0;
  // A sub-loop runs with what its parent bound (the same on every continue-as-new: deterministic).
  const childStarted = input.child ? childStart(input.definition, input.child) : undefined;
  const def = childStarted && 'definition' in childStarted ? childStarted.definition : input.definition;
  let snapshot: Snapshot;
  let pending: Command[];

  if (childStarted && 'error' in childStarted) {
    ({ snapshot, commands: pending } = failedStart(def, Date.now(), childStarted.error));
  } else if (input.resume) {
    snapshot = input.resume.snapshot;
    pending = [input.resume.command];
  } else if (input.continueFrom) {
    ({ snapshot, commands: pending } = resume(def, input.continueFrom.snapshot, Date.now(), input.continueFrom.runId));
  } else {
    ({ snapshot, commands: pending } = start(def, Date.now(), childStarted ?? {}));
  }

  setHandler(snapshotQuery, () => snapshot);
  setHandler(statusQuery, (): LoopStatus => ({
    loop: def.name,
    state: snapshot.current,
    phase: snapshot.phase,
    iteration: snapshot.iteration,
    max_iterations: def.max_iterations,
    steps: snapshot.steps,
    last_verdict: snapshot.result?.verdict ?? null,
    started_at: snapshot.startedAt,
    elapsed_ms: Date.now() - snapshot.startedAtMs,
    captured: Object.keys(snapshot.captured),
    result: snapshot.outcome,
  }));

  // One durable timer bounds the whole run (loop-level `timeout`), across continue-as-new.
  const deadline = def.timeout === undefined ? undefined : snapshot.startedAtMs + def.timeout * 1000;
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

  let lastReported = '';
  const report = (): void => {
    const key = `${snapshot.current}/${snapshot.iteration}/${snapshot.phase}`;
    if (key === lastReported) return;
    lastReported = key;
    const verdict = snapshot.result ? ` · last verdict ${snapshot.result.verdict}` : '';
    setCurrentDetails(`**${snapshot.current}** · pass ${snapshot.iteration}/${def.max_iterations} · ${snapshot.phase}${verdict}`);
    loopEvents.state({
      loop: def.name,
      current_state: snapshot.current,
      phase: snapshot.phase,
      iteration: snapshot.iteration,
      steps: snapshot.steps,
      captured: snapshot.captured,
      last_result: snapshot.result,
      started_at: snapshot.startedAt,
      result: snapshot.outcome,
    });
    if (input.options.searchAttributes) {
      upsertSearchAttributes({ LoopState: [snapshot.current], LoopStatus: [snapshot.phase === 'done' ? 'done' : 'running'] });
    }
  };

  /** Run one effect under the loop deadline; the result is the event to feed back to the core. */
  const perform = async (command: Command): Promise<StepEvent | null> => {
    const scope = new CancellationScope();
    const work = scope.run(async (): Promise<StepEvent | null> => {
      switch (command.type) {
        case 'run_action': {
          const full: RunActionInput = { ...command.input, instanceId, cwd };
          try {
            const local = isLocal(full, localMaxS);
            const result = await actionActivity(full, localMaxS)(full);
            await flushLocal(result, local);
            return { type: 'action_done', result, now: Date.now() };
          } catch (err) {
            if (isCancellation(err)) throw err;
            return { type: 'action_failed', error: `action could not run: ${errorText(err)}`, now: Date.now() };
          }
        }
        case 'evaluate_llm': {
          try {
            const result = await llmActivity(command.input.timeout_s, command.input.state)({ ...command.input, instanceId, cwd });
            return { type: 'llm_done', result, now: Date.now() };
          } catch (err) {
            if (isCancellation(err)) throw err;
            return { type: 'llm_done', result: { verdict: 'error', details: { error: `LLM evaluation failed: ${errorText(err)}` } }, now: Date.now() };
          }
        }
        case 'sleep':
          await sleep(command.ms);
          return { type: 'sleep_done', now: Date.now() };
        case 'run_loop':
          return runChild(input, command.input, instanceId);
        default:
          return null;
      }
    });
    const winner = await Promise.race([work, timedOut]);
    if (winner !== TIMED_OUT) return winner;
    scope.cancel();
    await work.catch(() => undefined); // WAIT_CANCELLATION_COMPLETED: the process group is gone
    return { type: 'timeout', now: Date.now() };
  };

  const apply = (out: StepOutput): void => {
    snapshot = out.snapshot;
    pending = out.commands;
  };

  try {
    for (;;) {
      let effect: Command | undefined;
      for (const command of pending) {
        if (command.type === 'emit') loopEvents.emit(command.event);
        else effect = command;
      }
      report();
      if (!effect) throw new Error('internal: the core returned no effect for a running loop');
      if (effect.type === 'finish') return settle(effect.result, input.options.failOnNonTerminal);
      const info = workflowInfo();
      if (info.continueAsNewSuggested || info.historyLength > (input.options.historyEventLimit ?? MAX_HISTORY_EVENTS) || info.historySize > MAX_HISTORY_BYTES) {
        timeoutScope.cancel();
        await continueAsNew<typeof loopWorkflow>({ ...input, resume: { snapshot, command: effect } });
      }
      const event = await perform(effect);
      if (!event) throw new Error(`internal: unknown effect ${effect.type}`);
      apply(step(def, snapshot, event));
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Stopped from outside: record the end like any other, keeping state and captured values.
    apply(step(def, snapshot, { type: 'cancel', now: Date.now() }));
    for (const command of pending) if (command.type === 'emit') loopEvents.emit(command.event);
    report();
    const finish = pending.find((c): c is Extract<Command, { type: 'finish' }> => c.type === 'finish');
    if (!finish) throw err;
    return finish.result;
  }
}

/**
 * How the loop workflow calls its work: the activity proxies (timeouts, heartbeats, retries,
 * cancellation, the Web UI summaries) for actions, LLM evaluations and diff_stall's git call, and
 * the summary of a durable sleep. Workflow code: deterministic, no Node built-ins.
 */
import { ActivityCancellationType, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { ActionCall, ActionOutcome, LoopActivities } from './activity-types.js';
import type { Placement } from './placement.js';
import type { LlmReply, Snapshot, WorkEffect } from '../fsm/run/snapshot.js';
import type { RunActionInput } from '../fsm/types.js';

/** Grace beyond an action's own timeout before Temporal gives up on the activity. */
const ACTIVITY_TIMEOUT_SLACK_S = 60;
/**
 * A worker that stops heartbeating for this long is presumed dead; the action is retried once.
 * A run's `heartbeatTimeoutS` replaces it; runs without it (every run before it) keep 30 s.
 * @public read by bench/transitions.mjs from dist/ (an import the dead-code check cannot follow)
 */
export const DEFAULT_HEARTBEAT_TIMEOUT_S = 30;

/** Quick shell actions (timeout at most `localMaxS`) run as local activities. */
export function isLocal(input: Pick<RunActionInput, 'kind' | 'timeout_s'>, localMaxS: number): boolean {
  return input.kind === 'shell' && input.timeout_s <= localMaxS;
}

export function actionActivity(
  input: RunActionInput,
  local: boolean,
  at: ReturnType<Placement['activityOptions']>,
  heartbeatS = DEFAULT_HEARTBEAT_TIMEOUT_S,
  afterS = 0,
): (input: ActionCall) => Promise<ActionOutcome> {
  const common = {
    // `afterS`: the longest the quick actions after the action may take in its activity (RunActionInput.burst_after).
    startToCloseTimeout: `${input.timeout_s + afterS + ACTIVITY_TIMEOUT_SLACK_S}s`,
    // A dead worker's action is re-run at most once (at-least-once delivery of actions).
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: ['ActionSetupError'] },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
  if (local) {
    return proxyLocalActivities<LoopActivities>(common).runAction;
  }
  return proxyActivities<LoopActivities>({
    ...common,
    heartbeatTimeout: `${heartbeatS}s`,
    summary: input.state,
    ...at,
  }).runAction;
}

export function llmActivity(
  timeoutS: number,
  state: string,
  at: ReturnType<Placement['activityOptions']>,
  heartbeatS = DEFAULT_HEARTBEAT_TIMEOUT_S,
): (input: Parameters<LoopActivities['evaluateLlm']>[0]) => Promise<LlmReply> {
  return proxyActivities<LoopActivities>({
    ...at,
    startToCloseTimeout: `${timeoutS + ACTIVITY_TIMEOUT_SLACK_S}s`,
    heartbeatTimeout: `${heartbeatS}s`,
    retry: { maximumAttempts: 3 },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    summary: `evaluate ${state}`,
  }).evaluateLlm;
}

/** diff_stall's git call: quick, local to the run's directory; a dead worker's is simply asked again. */
export function diffStatActivity(
  state: string,
  at: ReturnType<Placement['activityOptions']>,
): LoopActivities['diffStat'] {
  return proxyActivities<LoopActivities>({
    ...at,
    startToCloseTimeout: '90s',
    retry: { maximumAttempts: 3 },
    summary: `diff ${state}`,
  }).diffStat;
}

/** A human state's notification hook: short, never retried (a second notification would be noise). */
export function notifyActivity(
  state: string,
  at: ReturnType<Placement['activityOptions']>,
): LoopActivities['notifyHuman'] {
  return proxyActivities<LoopActivities>({
    ...at,
    startToCloseTimeout: '90s',
    retry: { maximumAttempts: 1 },
    summary: `notify ${state}`,
  }).notifyHuman;
}

/** What a durable sleep is for, as the Web UI lists the timer (user metadata: replays ignore it). */
export function sleepSummary(work: Extract<WorkEffect, { type: 'sleep' }>, snapshot: Snapshot): string {
  const state = snapshot.current;
  switch (work.reason) {
    case 'rate_limit':
      return `${state}: rate limited until ${new Date(work.until_ms).toISOString()}`;
    case 'retry':
      return `${state}: before attempt ${snapshot.attempt}`;
    case 'maintain_delay':
      return 'maintain delay';
    case 'backoff':
      return `${state}: backoff`;
  }
}

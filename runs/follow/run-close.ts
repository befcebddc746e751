/**
 * How a run ended, as its Temporal history says (follow-events.ts reads it for every follower):
 * its result, or why it failed, was terminated, timed out or was stopped.
 */
import type { ExecutionResult } from '../../fsm/types.js';
import type { LoopRunResult } from '../../workflows/definitions.js';
import { LOOP_FAILED } from '../../workflows/definitions.js';
import { resultInHistory } from '../find/run-result.js';
import { decodeFirst, failureMessages, type HistoryEvent } from '../find/temporal-history.js';

/** How the chain ended, as far as its history goes. */
export type RunEnd =
  | { status: 'completed'; result: ExecutionResult }
  | {
      status: 'failed' | 'terminated' | 'timed_out' | 'canceled';
      reason: string;
      result?: ExecutionResult;
      failure?: FailureInfo;
    };

/** A failed run's ApplicationFailure: its type and first detail (e.g. `ScopeBusy` and who was in the way). */
interface FailureInfo {
  type: string;
  message: string;
  details?: unknown;
}

/** A workflow's result without the snapshot it carries for `resume`. */
function resultOf(value: LoopRunResult | undefined): ExecutionResult | undefined {
  if (!value) return undefined;
  const { snapshot: _snapshot, ...result } = value;
  return result;
}

/** How the execution closed, from its last event; undefined while it is open or continued as new. */
export function closeOf(e: HistoryEvent, history: HistoryEvent[]): RunEnd | undefined {
  const done = e.workflowExecutionCompletedEventAttributes;
  if (done) {
    const result = resultOf(decodeFirst<LoopRunResult>(done.result));
    return result
      ? { status: 'completed', result }
      : { status: 'failed', reason: 'the workflow completed without a result' };
  }
  const failed = e.workflowExecutionFailedEventAttributes;
  if (failed) {
    const info = failed.failure?.applicationFailureInfo;
    const result = info?.type === LOOP_FAILED ? resultOf(decodeFirst<LoopRunResult>(info.details)) : undefined;
    const failure: FailureInfo | undefined = info?.type
      ? { type: info.type, message: failed.failure?.message ?? '', details: decodeFirst<unknown>(info.details) }
      : undefined;
    return {
      status: 'failed',
      reason: failureMessages(failed.failure).join(': ') || 'failed',
      ...(result ? { result } : {}),
      ...(failure ? { failure } : {}),
    };
  }
  if (e.workflowExecutionTerminatedEventAttributes)
    return { status: 'terminated', reason: e.workflowExecutionTerminatedEventAttributes.reason || 'terminated' };
  if (e.workflowExecutionTimedOutEventAttributes)
    return { status: 'timed_out', reason: 'the workflow execution timed out' };
  if (e.workflowExecutionCanceledEventAttributes) {
    // A run of 0.4.0 or later records its end (memo `outcome`) before it closes as Canceled.
    const result = resultInHistory(history);
    return result
      ? { status: 'canceled', reason: 'stopped', result }
      : { status: 'canceled', reason: 'cancelled before the loop recorded its end' };
  }
  return undefined;
}

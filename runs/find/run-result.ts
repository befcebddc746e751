/**
 * A closed run's loop result, however its workflow closed (fsm/run/outcome.ts):
 * - Completed: the workflow's result;
 * - Failed with `LoopFailed`: the failure's details (runs of 0.4.0 and later that did not reach a
 *   success terminal, and scheduled runs with `--pause-on-failure` before that);
 * - Canceled (stopped, 0.4.0 and later): the `outcome` memo the run left before it closed (large
 *   captured values only named there: `resume` replays the history for them).
 * Terminated, timed-out and other failed workflows carry no loop result.
 */
import { WorkflowFailedError } from '@temporalio/client';
import type { ExecutionResult } from '../../fsm/types.js';
import { LOOP_FAILED, type LoopRunResult } from '../../workflows/definitions.js';
import { decodeFirst, type HistoryEvent } from './temporal-history.js';

/** The memo key of a stopped run's result. */
const OUTCOME_MEMO = 'outcome';

/** The result in a `WorkflowFailedError` from `handle.result()` (a LoopFailed failure's details). */
export function resultInFailure(err: unknown): LoopRunResult | undefined {
  if (!(err instanceof WorkflowFailedError)) return undefined;
  const cause = err.cause as { type?: unknown; details?: unknown[] } | undefined;
  return cause?.type === LOOP_FAILED ? (cause.details?.[0] as LoopRunResult | undefined) : undefined;
}

/** A stopped run's result, from its memo (a described run's `memo`). */
export function resultInMemo(memo: Record<string, unknown> | undefined): ExecutionResult | undefined {
  const outcome = memo?.[OUTCOME_MEMO];
  return isResult(outcome) ? asResult(outcome) : undefined;
}

/** A stopped run's result, from the memo its history records (the last upsert of `outcome`). */
export function resultInHistory(events: HistoryEvent[]): ExecutionResult | undefined {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const fields = events[i]!.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
    const payload = fields?.[OUTCOME_MEMO];
    if (!payload) continue;
    const outcome = decodeFirst<unknown>({ payloads: [payload] });
    if (isResult(outcome)) return asResult(outcome);
  }
  return undefined;
}

/** Whether a workflow's execution status may come with a loop result (Completed, Failed, Canceled). */
export function mayHaveResult(status: string): boolean {
  return status === 'COMPLETED' || status === 'FAILED' || status === 'CANCELLED';
}

function isResult(value: unknown): value is ExecutionResult {
  const v = value as Partial<ExecutionResult> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.loop === 'string' &&
    typeof v.terminated_by === 'string' &&
    typeof v.final_state === 'string'
  );
}

/** Captured values too large for the memo are named there (null): the result leaves them out. */
function asResult(outcome: ExecutionResult): ExecutionResult {
  const captured = Object.fromEntries(Object.entries(outcome.captured ?? {}).filter(([, v]) => v !== null));
  return { ...outcome, captured };
}

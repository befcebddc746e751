/**
 * Why a closed run failed at the Temporal level when it left no loop result: the type, message
 * and first detail of the ApplicationFailure it failed with (`ScopeBusy` and who was in the way,
 * for a run its scope lock denied). Undefined for a run that did not fail that way.
 */
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

/** The failure's type (`ScopeBusy`, …), message and first detail. */
export interface ClosedFailure {
  type: string;
  message: string;
  details?: unknown;
}

export async function closedFailure(handle: WorkflowHandle): Promise<ClosedFailure | undefined> {
  return handle.result().then(
    () => undefined,
    (err: unknown) => {
      const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
      if (!(cause instanceof ApplicationFailure) || !cause.type) return undefined;
      return {
        type: cause.type,
        message: cause.message,
        ...(cause.details?.[0] === undefined ? {} : { details: cause.details[0] }),
      };
    },
  );
}

/**
 * Waiting for a run's result without giving up when the Temporal server goes away for a while
 * (`ll-loop server stop` / `start`, a cluster restart): the run is durable on the server, so the
 * waiter keeps asking until the server answers again.
 */
import {
  isGrpcServiceError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { ExecutionResult } from '../../fsm/types.js';
import { CliError } from '../../errors/errors.js';
import { causes } from '../../errors/error-causes.js';
import { EXIT } from '../../errors/exit-codes.js';
import { GRPC } from '../../errors/grpc-status.js';
import { resultInFailure } from './run-result.js';

/** gRPC codes that mean "this will never work", not "ask again later". */
const PERMANENT_CODES = new Set<number>([
  GRPC.invalidArgument,
  GRPC.notFound,
  GRPC.permissionDenied,
  GRPC.unimplemented,
  GRPC.unauthenticated,
]);
const RETRY_EVERY_MS = 1_000;

/** The workflow closed without a result: terminated, failed or timed out at the Temporal level. */
class RunClosedAbnormallyError extends CliError {
  override readonly name = 'RunClosedAbnormallyError';
  constructor(
    readonly workflowId: string,
    cause: WorkflowFailedError,
  ) {
    const why = [cause.message, (cause.cause as Error | undefined)?.message].filter(Boolean).join(': ');
    super(
      `run ${workflowId} ended without a result (${why})`,
      `continue it from where it was with: ll-loop resume ${workflowId}`,
      EXIT.runError,
    );
  }
}

/** Whether an error from a client call is the server being unreachable for now. */
export function isTransientServiceError(err: unknown): boolean {
  const grpc = causes(err).find((e) => isGrpcServiceError(e));
  if (grpc) return !PERMANENT_CODES.has(grpc.code as number);
  return (err as Error | undefined)?.name === 'ServiceError';
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface AwaitOptions {
  /** Called once when the server stops answering (e.g. to tell the user it is waiting). */
  onDisconnect?: (message: string) => void;
  /** Called once the server answers again after a disconnect. */
  onReconnect?: () => void;
}

/**
 * The run's ExecutionResult, following continue-as-new, retrying through server outages.
 * @throws RunClosedAbnormallyError when the workflow was terminated or failed
 */
async function awaitResult(handle: WorkflowHandle, opts: AwaitOptions = {}): Promise<ExecutionResult> {
  let disconnected = false;
  for (;;) {
    try {
      const result = (await handle.result()) as ExecutionResult;
      if (disconnected) opts.onReconnect?.();
      return result;
    } catch (err) {
      if (err instanceof WorkflowFailedError) {
        const result = resultInFailure(err);
        if (result) return result;
        throw new RunClosedAbnormallyError(handle.workflowId, err);
      }
      if (err instanceof WorkflowNotFoundError || !isTransientServiceError(err)) throw err;
      if (!disconnected) opts.onDisconnect?.((err as Error).message);
      disconnected = true;
      await delay(RETRY_EVERY_MS);
    }
  }
}

/** Resolve once the workflow is closed, however it ended (used by `worker --until-closed`). */
export async function awaitClosed(handle: WorkflowHandle, opts: AwaitOptions = {}): Promise<void> {
  try {
    await awaitResult(handle, opts);
  } catch (err) {
    if (err instanceof RunClosedAbnormallyError || err instanceof WorkflowNotFoundError) return;
    throw err;
  }
}

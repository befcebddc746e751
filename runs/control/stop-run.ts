/**
 * Stopping an open run (`ll-loop stop`, the ui's Stop): gracefully, the
 * workflow is cancelled; its worker kills the running action's process group and the run
 * completes with `terminated_by: cancelled`, keeping its state, captured values and events.
 * Without a worker nothing can do that: `--force` terminates the run in Temporal instead, and
 * gives back the scopes it held (runs/control/release-scopes.ts).
 */
import type { Client, Connection, WorkflowHandle } from '@temporalio/client';
import type { ExecutionResult } from '../../fsm/types.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { closedResult, mayHaveResult, resolveRun } from '../find/run-target.js';
import { projectScope } from '../find/find-runs.js';
import { withSession } from '../../temporal/session.js';
import { releaseScopesOf } from './release-scopes.js';

/** How long `stop` waits for the run to close, by default. */
const DEFAULT_STOP_WAIT_S = 30;

/** Nothing picked up the cancellation: the run has no worker. */
export class NoWorkerError extends CliError {
  override readonly name = 'NoWorkerError';
  constructor(id: string, waitS: number) {
    super(
      `run ${id} has no worker: nothing picked up the stop request within ${waitS}s (no worker serves its task queue now); the request stays recorded`,
      `once a worker serves it again (its checkout's worker comes back with any ll-loop command there; a pool's with ll-loop worker --pool NAME), it stops the run as cancelled, keeping its state; or ll-loop stop ${id} --force terminates it now`,
      EXIT.runError,
    );
  }
}

/** The worker took the cancellation but the run has not closed yet (a long local action). */
class StopPendingError extends CliError {
  override readonly name = 'StopPendingError';
  constructor(id: string, waitS: number) {
    super(
      `run ${id} is still stopping after ${waitS}s: its worker took the request but the action has not ended yet; the run will end as cancelled`,
      `check with ll-loop status ${id}, or end it now with ll-loop stop ${id} --force`,
      EXIT.runError,
    );
  }
}

/** What to stop: the run `target` names (a run id of any project, or a loop's open run in `cwd`'s project). */
export interface StopRequest {
  cwd: string;
  target: string;
  /** Terminate in Temporal instead of cancelling (no worker needed). */
  force: boolean;
  /** Seconds to wait for the run to close (default 30). */
  waitS?: number;
}

/** How the stop went (what `stop --json` prints). */
export interface StopReport {
  id: string;
  /** `cancelled` (graceful), `terminated` (--force) or, when the run ended first, how it ended. */
  outcome: string;
  /** Temporal's execution status once closed, lower case. */
  status: string;
  result?: ExecutionResult;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll until the run closes or `ms` pass; returns its execution status name when closed. */
async function waitClosed(handle: WorkflowHandle, ms: number): Promise<string | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = (await handle.describe()).status.name;
    if (status !== 'RUNNING') return status;
    if (Date.now() >= deadline) return undefined;
    await sleep(Math.min(300, Math.max(0, deadline - Date.now())));
  }
}

/** Did a workflow task start after the cancellation request (i.e. is there a worker)? */
async function cancellationPickedUp(handle: WorkflowHandle): Promise<boolean> {
  const events = (await handle.fetchHistory()).events ?? [];
  const requested = events.findIndex((e) => e.workflowExecutionCancelRequestedEventAttributes);
  return requested >= 0 && events.slice(requested + 1).some((e) => e.workflowTaskStartedEventAttributes);
}

async function stopHandle(
  client: Client,
  connection: Connection,
  handle: WorkflowHandle,
  id: string,
  opts: StopRequest,
): Promise<StopReport> {
  if (opts.force) {
    await handle.terminate('stopped with ll-loop stop --force');
    // A terminated run cannot give its scopes back itself: this command does, before it returns.
    // Should that fail, the run is terminated all the same; the lock's liveness check frees them.
    await releaseScopesOf(client, id).catch(() => undefined);
    return { id, outcome: 'terminated', status: 'terminated' };
  }
  const waitS = opts.waitS ?? DEFAULT_STOP_WAIT_S;
  await handle.cancel();
  const status = await waitClosed(handle, waitS * 1000);
  if (status === undefined) {
    if (await cancellationPickedUp(handle)) throw new StopPendingError(id, waitS);
    throw new NoWorkerError(id, waitS);
  }
  const result = mayHaveResult(status) ? await closedResult(connection, handle) : undefined;
  const outcome = result?.terminated_by ?? status.toLowerCase();
  return { id, outcome, status: status.toLowerCase(), ...(result ? { result } : {}) };
}

/** Stop the run `req` names; resolves once it has closed (throws NoWorkerError, StopPendingError when it has not). */
export async function stopRun(req: StopRequest): Promise<StopReport> {
  return withSession(req.cwd, async ({ client, connection }) => {
    const run = await resolveRun(client, req.target, { latest: false, project: projectScope(req.cwd) });
    return stopHandle(client, connection, client.workflow.getHandle(run.id), run.id, req);
  });
}

/**
 * What `status`, `stop` and `history` act on: a run named by its run id or by its loop's name
 * (runs/find/find-runs.ts does the lookup), and bounded reads of a run — a query needs a worker, and on a
 * run whose worker is gone Temporal would wait for one until the RPC times out.
 */
import { WorkflowFailedError, type Client, type Connection, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { ExecutionResult } from '../../fsm/types.js';
import { statusQuery, type LoopRunResult, type LoopStatus } from '../../workflows/definitions.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { someCause } from '../../errors/error-causes.js';
import { GRPC } from '../../errors/grpc-status.js';
import {
  AmbiguousRunError,
  findRuns,
  runNotFound,
  scheduledRunId,
  settledRun,
  type ProjectScope,
  type RunSummary,
} from './find-runs.js';
import { resultInFailure, resultInMemo } from './run-result.js';
import { queuedStartsMade } from './queued-runs.js';
import { loopNameOfPath } from './loop-path-name.js';
import { QUERY_TIMEOUT_MS } from './status-text.js';
import { listedOutcome, outcomeLabel } from '../../reporters/outcome-words.js';

/** The run exists but is closed, where an open one was needed (stop). */
export class RunNotOpenError extends CliError {
  override readonly name = 'RunNotOpenError';
  constructor(target: string, run: RunSummary) {
    super(
      `${run.id === target ? `run ${target}` : `loop "${target}" has no open run; its latest run ${run.id}`} has already finished (${outcomeLabel(listedOutcome({ status: run.status, open: false, ...(run.loopStatus === undefined ? {} : { loopStatus: run.loopStatus }) }))})`,
      `see how it ended with ll-loop status ${run.id}`,
      EXIT.usage,
    );
  }
}

/**
 * The run `target` names: that run id exactly (from any project); else, for a loop name, the
 * one open run of `project` (several open runs are ambiguous), or with `latest` its newest run
 * when none is open. Without `project`, a name means the runs of every project.
 *
 * @throws RunNotFoundError, AmbiguousRunError, RunNotOpenError (when `latest` is false)
 */
export async function resolveRun(
  client: Client,
  given: string,
  opts: { latest: boolean; project?: ProjectScope },
): Promise<RunSummary> {
  // A loop file's path, as `run` took it, means the runs of the loop it names.
  const target = (opts.project && loopNameOfPath(given, opts.project.root)) ?? given;
  // A `run --background` the checkout's worker has queued is looked for once it has started (or
  // its failure is the error).
  if (opts.project) await queuedStartsMade(opts.project.root, target);
  // A run id is found as the server holds it now (findRuns); a name's runs as listed, settled below.
  const listed = await findRuns(client, target, opts.project ? { project: opts.project } : {});
  const exact = listed.find((r) => r.id === target || r.id === scheduledRunId(target));
  if (exact) {
    if (!exact.open && !opts.latest) throw new RunNotOpenError(target, exact);
    return exact;
  }
  if (listed.length === 0) throw await runNotFound(client, target, 'run', opts.project);
  // Only the runs listed as open can be staler than the listing says (settledRun).
  const runs = await Promise.all(listed.map((r) => settledRun(client, r)));
  const open = runs.filter((r) => r.open);
  if (open.length > 1) throw new AmbiguousRunError(target, open, 'open runs');
  if (open.length === 1) return open[0]!;
  if (!opts.latest) throw new RunNotOpenError(target, runs[0]!);
  return runs[0]!;
}

/** The run's own status, or `null` when no worker answered within `timeoutMs`. */
/**
 * The run's answer to the status query, with its elapsed time computed here: the workflow's
 * clock stands still between workflow tasks, so an elapsed time from the workflow would be stale
 * during a long action.
 */
export type LiveStatus = LoopStatus & { elapsed_ms: number };

export async function queryStatus(
  connection: Connection,
  handle: WorkflowHandle,
  timeoutMs = QUERY_TIMEOUT_MS,
): Promise<LiveStatus | null> {
  try {
    const status = await bounded(connection, timeoutMs, () => handle.query(statusQuery));
    return {
      ...status,
      elapsed_ms: status.result ? status.result.duration_ms : Math.max(0, Date.now() - status.started_at_ms),
    };
  } catch (err) {
    if (isTimeout(err) || isNoPoller(err)) return null;
    throw err;
  }
}

/**
 * Whether `err` is the server refusing a query because no worker has polled the run's queue lately
 * (FAILED_PRECONDITION): the same answer as a query nobody took in time — no worker answers for the
 * run. A server that has just restarted says this until its workers poll again.
 */
export function isNoPoller(err: unknown): boolean {
  return someCause(err, (e) => /no poller seen/i.test(String(e.message)));
}

/**
 * Whether a worker holds the run's workflow task right now (a query then waits for that task: a
 * quick local action can hold it up to its timeout). A dead worker's task also looks held until
 * Temporal times it out (10 s).
 */
export async function workflowTaskInFlight(handle: WorkflowHandle): Promise<boolean> {
  const state = (await handle.describe()).raw.pendingWorkflowTask?.state as unknown;
  return state === 2 || state === 'PENDING_WORKFLOW_TASK_STATE_STARTED';
}

export { mayHaveResult } from './run-result.js';

/**
 * A closed run's result, however the workflow closed (runs/find/run-result.ts); `undefined`
 * when it ended without one (terminated, crashed) or did not answer in time.
 */
export async function closedResult(
  connection: Connection,
  handle: WorkflowHandle,
  timeoutMs = 5_000,
): Promise<ExecutionResult | undefined> {
  try {
    return withoutSnapshot((await bounded(connection, timeoutMs, () => handle.result())) as LoopRunResult);
  } catch (err) {
    const failed = resultInFailure(err);
    if (failed) return withoutSnapshot(failed);
    if (!(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure)) return undefined;
    const description = await bounded(connection, timeoutMs, () => handle.describe()).catch(() => undefined);
    return resultInMemo(description?.memo);
  }
}

/**
 * The loop's result without the final snapshot the workflow returns with it for `resume`
 * (runs/resume reads it on its own): the run's internals, and its captured values once more.
 */
function withoutSnapshot(result: LoopRunResult): ExecutionResult {
  const { snapshot: _snapshot, ...outcome } = result;
  return outcome;
}

/** Run `fn` with a gRPC deadline, and a timer in case the call ignores it. */
export async function bounded<T>(
  connection: Pick<Connection, 'withDeadline'>,
  timeoutMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BoundedTimeout(timeoutMs)), timeoutMs + 500);
  });
  try {
    return await Promise.race([connection.withDeadline(Date.now() + timeoutMs, fn), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

class BoundedTimeout extends Error {
  override readonly name = 'BoundedTimeout';
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/**
 * Our own timer, or the gRPC deadline: DEADLINE_EXCEEDED, or CANCELLED, which the server
 * answers when the deadline it was passed runs out first. Possibly wrapped (ServiceError).
 */
export function isTimeout(err: unknown): boolean {
  return someCause(
    err,
    (e) => e instanceof BoundedTimeout || e.code === GRPC.deadlineExceeded || e.code === GRPC.cancelled,
  );
}

/** The embedded server's Web UI link for a run, when there is one. */
export function runUrl(uiUrl: string | undefined, namespace: string, id: string): string | undefined {
  return uiUrl ? `${uiUrl}/namespaces/${namespace}/workflows/${encodeURIComponent(id)}` : undefined;
}

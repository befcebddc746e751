/**
 * What `ll-loop resume` needs to know about one run, from Temporal: whether it is open, stopped
 * before a terminal state (resumable) or finished; what it started with (its workflow input);
 * whether it has been resumed already (runs `<id>-r1`, `-r2`, …); and its last snapshot, asked of
 * the closed workflow by replay.
 */
import { existsSync } from 'node:fs';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import type { Snapshot } from '../../fsm/snapshot.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { createLoopWorker } from '../../worker/create-worker.js';
import { LOOP_WORKFLOW_TYPE, snapshotQuery, type LoopWorkflowInput } from '../../workflows/definitions.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { bounded, isTimeout } from './run-target.js';
import { isPerRunQueue } from './start-run.js';

/**
 * Time limits of the snapshot query's attempts (32 s in all). A query the server hands to a
 * worker that then shuts down (a concurrent `resume` of the same run polls the same queue and
 * stops once it has its answer) is never answered; a fresh attempt goes to a worker still polling.
 */
const SNAPSHOT_QUERY_ATTEMPTS_MS = [8_000, 8_000, 16_000];

/** One run, as resume sees it. */
export type RunCondition =
  | { kind: 'open'; id: string; description: WorkflowExecutionDescription }
  | { kind: 'stopped'; id: string; description: WorkflowExecutionDescription; reason: string }
  | { kind: 'finished'; id: string; description: WorkflowExecutionDescription; result: ExecutionResult };

/** The run reached its terminal state: there is nothing to continue. */
export class RunFinishedError extends CliError {
  override readonly name = 'RunFinishedError';
  constructor(id: string, result: ExecutionResult) {
    super(
      `run ${id} finished at its terminal state ${result.final_state}${result.failure ? ' (a failure state)' : ''}; there is nothing to resume`,
      `start a new run with: ll-loop run ${result.loop}`,
      EXIT.usage,
    );
  }
}

/** Another resume of the same run is under way (or just won the race). */
export class AlreadyBeingResumedError extends CliError {
  override readonly name = 'AlreadyBeingResumedError';
  constructor(id: string, resumedAs: string) {
    super(
      `run ${id} is already being resumed as ${resumedAs}`,
      `follow that run (ll-loop status ${resumedAs} --follow); if the process running it has died, run: ll-loop resume ${resumedAs}`,
      EXIT.usage,
    );
  }
}

/** The run's project directory is not on this machine. */
export class RunDirectoryMissingError extends CliError {
  override readonly name = 'RunDirectoryMissingError';
  constructor(id: string, cwd: string | undefined) {
    super(
      cwd === undefined
        ? `run ${id} does not record its project directory (memo "cwd"), so its actions have nowhere to run`
        : `run ${id} runs its actions in ${cwd}, which does not exist on this machine`,
      cwd === undefined ? 'resume runs that ll-loop started' : `resume it on the machine (and in the project) where it was started, from ${cwd}`,
      EXIT.usage,
    );
  }
}

/** The snapshot of a closed run could not be read back. */
export class SnapshotUnavailableError extends CliError {
  override readonly name = 'SnapshotUnavailableError';
  constructor(id: string, why: string, fix: string) {
    super(`cannot read where run ${id} stopped: ${why}`, fix, EXIT.runError);
  }
}

/** Memo fields ll-loop sets on every run. */
export function memoOf(description: WorkflowExecutionDescription): { cwd?: string; file?: string; loop?: string; resumed_from?: string } {
  const memo = (description.memo ?? {}) as Record<string, unknown>;
  const pick = (k: string) => (typeof memo[k] === 'string' ? { [k]: memo[k] as string } : {});
  return { ...pick('cwd'), ...pick('file'), ...pick('loop'), ...pick('resumed_from') };
}

/** The run's project directory, which must exist here for its actions to run. */
export function requireRunDirectory(id: string, description: WorkflowExecutionDescription): string {
  const { cwd } = memoOf(description);
  if (cwd === undefined || !existsSync(cwd)) throw new RunDirectoryMissingError(id, cwd);
  return cwd;
}

/** Open, stopped or finished; undefined when there is no loop run with this id. */
export async function inspectRun(client: Client, id: string): Promise<RunCondition | undefined> {
  const handle = client.workflow.getHandle(id);
  let description: WorkflowExecutionDescription;
  try {
    description = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
  if (description.type !== LOOP_WORKFLOW_TYPE) return undefined;
  const status = description.status.name;
  if (status === 'RUNNING') return { kind: 'open', id, description };
  if (status !== 'COMPLETED') return { kind: 'stopped', id, description, reason: status.toLowerCase().replace('_', ' ') };
  const result = (await handle.result()) as ExecutionResult;
  if (result.terminated_by === 'terminal') return { kind: 'finished', id, description, result };
  return { kind: 'stopped', id, description, reason: result.terminated_by.replace('_', ' ') };
}

/** Whether the run was resumed before (its first resume, `<id>-r1`, exists). */
export async function wasResumed(client: Client, id: string): Promise<boolean> {
  return client.workflow
    .getHandle(`${id}-r1`)
    .describe()
    .then(
      () => true,
      (err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      },
    );
}

/**
 * The id for the next resume of `id`: the first free `<id>-r<n>`. A resume that is still
 * running means another resume is under way: AlreadyBeingResumedError.
 */
export async function nextResumeId(client: Client, id: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const candidate = `${id}-r${n}`;
    try {
      const d = await client.workflow.getHandle(candidate).describe();
      if (d.status.name === 'RUNNING') throw new AlreadyBeingResumedError(id, candidate);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return candidate;
      throw err;
    }
  }
}

/** The input the run's latest execution started with (first history event only). */
export async function startInputOf(client: Client, id: string): Promise<LoopWorkflowInput | undefined> {
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: id },
    maximumPageSize: 1,
  });
  const payload = response.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return payload ? defaultPayloadConverter.fromPayload<LoopWorkflowInput>(payload) : undefined;
}

/**
 * The closed run's last snapshot. Temporal answers a query on a closed workflow by replaying its
 * history on a worker polling its task queue, so for a per-run queue this process polls it for
 * the query's duration. A shared queue is left to its worker pool (polling it here would take
 * other runs' work).
 */
export async function snapshotOfClosedRun(client: Client, native: NativeConnection, id: string, taskQueue: string): Promise<Snapshot> {
  const handle = client.workflow.getHandle(id);
  const query = async (): Promise<Snapshot> => {
    for (const [i, ms] of SNAPSHOT_QUERY_ATTEMPTS_MS.entries()) {
      try {
        return await bounded(client.connection, ms, () => handle.query(snapshotQuery));
      } catch (err) {
        if (!isTimeout(err)) throw err;
        if (i === SNAPSHOT_QUERY_ATTEMPTS_MS.length - 1) {
          const total = SNAPSHOT_QUERY_ATTEMPTS_MS.reduce((a, b) => a + b, 0);
          throw new Error(`the snapshot query did not answer within ${total / 1000} s`);
        }
      }
    }
    throw new Error('unreachable: no snapshot query attempt');
  };
  try {
    if (!isPerRunQueue(taskQueue)) return await query();
    const { worker } = await createLoopWorker({ connection: native, namespace: client.options.namespace, taskQueue });
    return await worker.runUntil(query);
  } catch (err) {
    const why = (err as Error).message;
    throw new SnapshotUnavailableError(
      id,
      why,
      isPerRunQueue(taskQueue)
        ? 'if the run never got going, start a new one with ll-loop run <loop>; with LL_DEBUG=1 the stack is shown'
        : `its task queue ${taskQueue} is a shared one: start a worker for it (ll-loop worker --task-queue ${taskQueue}) and resume again`,
    );
  }
}

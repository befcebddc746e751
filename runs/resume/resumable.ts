/**
 * What `ll-loop resume` needs to know about one run, from Temporal: whether it is open, stopped
 * before a terminal state (resumable) or finished; what it started with (its workflow input);
 * whether it has been resumed already (runs `<id>-r1`, `-r2`, …); and its last snapshot — in
 * its result (or failure details) since the run returns it, else from a replay of its history.
 */
import { existsSync } from 'node:fs';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { upgradeSnapshot } from '../../fsm/run/snapshot-upgrade.js';
import type { Snapshot } from '../../fsm/run/snapshot.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { HistoryReplayer } from '../../worker/replay-events.js';
import {
  LOOP_FAILED,
  LOOP_WORKFLOW_TYPE,
  type LoopRunResult,
  type LoopWorkflowInput,
} from '../../workflows/definitions.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { resultInFailure } from '../find/run-result.js';
import { decodeFirst, historyPages, type HistoryEvent } from '../find/temporal-history.js';

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
class RunDirectoryMissingError extends CliError {
  override readonly name = 'RunDirectoryMissingError';
  constructor(id: string, cwd: string | undefined) {
    super(
      cwd === undefined
        ? `run ${id} does not record its project directory (memo "cwd"), so its actions have nowhere to run`
        : `run ${id} runs its actions in ${cwd}, which does not exist on this machine`,
      cwd === undefined
        ? 'resume runs that ll-loop started'
        : `resume it on the machine (and in the project) where it was started, from ${cwd}`,
      EXIT.usage,
    );
  }
}

/** The snapshot of a closed run could not be read back. */
class SnapshotUnavailableError extends CliError {
  override readonly name = 'SnapshotUnavailableError';
  constructor(id: string, why: string, fix: string) {
    super(`cannot read where run ${id} stopped: ${why}`, fix, EXIT.runError);
  }
}

/** Memo fields ll-loop sets on every run. */
export function memoOf(description: WorkflowExecutionDescription): {
  cwd?: string;
  file?: string;
  loop?: string;
  resumed_from?: string;
} {
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
  // A run of 0.4.0 or later that did not succeed failed with its result (LoopFailed); it may
  // still have ended in a terminal state (a `failure: true` one), which is not resumable.
  const result =
    status === 'COMPLETED'
      ? ((await handle.result()) as ExecutionResult)
      : status === 'FAILED'
        ? await handle.result().then(() => undefined, resultInFailure)
        : undefined;
  if (!result) return { kind: 'stopped', id, description, reason: status.toLowerCase().replace('_', ' ') };
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

/** The snapshot a run's close event carries: its result's, or a LoopFailed failure's details. */
function snapshotInClose(e: HistoryEvent | undefined): Snapshot | undefined {
  const completed = e?.workflowExecutionCompletedEventAttributes;
  if (completed) return decodeFirst<LoopRunResult>(completed.result)?.snapshot;
  const info = e?.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo;
  if (info?.type === LOOP_FAILED) return decodeFirst<LoopRunResult>(info.details)?.snapshot;
  return undefined;
}

/**
 * The closed run's last snapshot. A run returns its final snapshot with its result (and in the
 * details of a LoopFailed failure): nothing is replayed for it. A run that closed without
 * recording its end (terminated, timed out at the Temporal level) or one started by 0.1.0 is
 * replayed here, through the workflow bundle, up to its last workflow task: the snapshot is the
 * last state the run reported.
 */
export async function snapshotOfClosedRun(client: Client, id: string): Promise<Snapshot> {
  try {
    let last: { runId: string; events: HistoryEvent[] } | undefined;
    for await (const page of historyPages(client, id)) {
      if (last?.runId !== page.runId) last = { runId: page.runId, events: [] };
      last.events.push(...page.events);
    }
    const recorded = snapshotInClose(last?.events.at(-1));
    if (recorded) return upgradeSnapshot(recorded);
    if (!last) throw new Error('its history is empty');
    const replayer = new HistoryReplayer();
    try {
      const replayed = await replayer.replay({ events: last.events }, id);
      if (replayed.state) return upgradeSnapshot(replayed.state.snapshot);
      throw new Error(
        replayed.error
          ? `this ll-loop cannot interpret its history (${replayed.error.message.split('\n')[0]})`
          : 'the run never reported a state',
      );
    } finally {
      await replayer.close();
    }
  } catch (err) {
    throw new SnapshotUnavailableError(
      id,
      (err as Error).message,
      'if the run never got going, start a new one with ll-loop run <loop>; with LL_DEBUG=1 the stack is shown',
    );
  }
}

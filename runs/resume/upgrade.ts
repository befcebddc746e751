/**
 * An open run this release cannot replay (its history was written by a release whose rules are
 * gone: see docs/architecture.md, "Changing workflow or core behaviour") would wedge on a
 * non-determinism error the moment a worker of this release took it. Before `ll-loop resume`
 * gives an open run a worker, it replays the run's current execution here; when that fails, the
 * run is moved onto this release instead: the old execution is terminated and the same workflow
 * id continues from the run's last snapshot, with its clock and event numbering, saying so with a
 * `loop_upgraded` event.
 */
import { readFileSync } from 'node:fs';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { upgradeSnapshot } from '../../fsm/run/snapshot-upgrade.js';
import type { Snapshot, Upgrade } from '../../fsm/run/snapshot.js';
import { serverKey, writeRunEnv } from '../../host/run-env.js';
import { buildInfo } from '../../host/build-info.js';
import { HistoryReplayer } from '../../worker/replay-events.js';
import { statePath } from '../../host/run-files.js';
import { LOOP_WORKFLOW_TYPE, type LoopWorkflowInput, type RunStateFile } from '../../workflows/definitions.js';
import { CURRENT_RUN_RULES } from '../../workflows/run-rules.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { decodeFirst, historyPages, type HistoryEvent } from '../find/temporal-history.js';

/** What moving a run needs: why, and where it was. */
export interface UpgradePlan {
  upgrade: Upgrade;
  snapshot: Snapshot;
  input: LoopWorkflowInput;
}

/** The run can be neither replayed nor moved: no snapshot of it was kept. */
class NotUpgradableError extends CliError {
  override readonly name = 'NotUpgradableError';
  constructor(id: string, why: string, build: string | undefined) {
    super(
      `run ${id} cannot continue on ll-loop ${buildInfo().build_id}: ${why}, and no snapshot of it was kept to continue from`,
      `finish it with the release that started it${build ? ` (${build})` : ''}, or stop it: ll-loop stop ${id} --force`,
      EXIT.runError,
    );
  }
}

/** The snapshot the run's worker last wrote to `.loops/.running/<id>.state.json`, if any. */
function snapshotInStateFile(cwd: string, id: string): Snapshot | undefined {
  try {
    const state = JSON.parse(readFileSync(statePath(cwd, id), 'utf8')) as Partial<RunStateFile>;
    return state.snapshot ? upgradeSnapshot(state.snapshot) : undefined;
  } catch {
    return undefined;
  }
}

/** An open run as this release reads it: where it is, or how to move it onto this release. */
export type OpenRunReading = { replays: true; state: RunStateFile | undefined } | { replays: false; plan: UpgradePlan };

/**
 * Replay the open run's current execution with this release's bundle: where the run is when it
 * replays (a worker of this release can take it), else how to move it onto this release.
 */
export async function readOpenRun(
  client: Client,
  id: string,
  description: WorkflowExecutionDescription,
  cwd: string,
): Promise<OpenRunReading> {
  const events: HistoryEvent[] = [];
  for await (const page of historyPages(client, id, { runId: description.runId })) events.push(...page.events);
  const replayer = new HistoryReplayer();
  let replayed;
  try {
    replayed = await replayer.replay({ events }, id);
  } finally {
    await replayer.close();
  }
  if (!replayed.error) return { replays: true, state: replayed.state };
  const reason = replayed.error.message.split('\n')[0] ?? 'its history cannot be replayed';
  const memo = (description.memo ?? {}) as { build_id?: unknown };
  const fromBuild = typeof memo.build_id === 'string' ? memo.build_id : undefined;
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const input = decodeFirst<LoopWorkflowInput>(started?.input);
  // The worker's state file is written after every transition; a replay up to the point where
  // the rules part is the fallback (it is this release's reading of the run's past).
  const snapshot =
    snapshotInStateFile(cwd, id) ?? (replayed.state ? upgradeSnapshot(replayed.state.snapshot) : undefined);
  if (!snapshot || !input?.definition)
    throw new NotUpgradableError(id, `this release cannot replay its history (${reason})`, fromBuild);
  return {
    replays: false,
    plan: {
      upgrade: { reason: `this release cannot replay its history (${reason})`, ...(fromBuild ? { fromBuild } : {}) },
      snapshot,
      input,
    },
  };
}

/**
 * Move the run: terminate its execution and continue the same workflow id from the snapshot on
 * this release, on the same task queue, with the memo it had plus this release's build.
 */
export async function moveOntoThisRelease(
  client: Client,
  id: string,
  description: WorkflowExecutionDescription,
  plan: UpgradePlan,
): Promise<void> {
  const build = buildInfo();
  await client.workflow
    .getHandle(id, description.runId)
    .terminate(`moved onto ll-loop ${build.build_id}: ${plan.upgrade.reason}`);
  // A new execution, started by this command: its actions see this command's environment, as a
  // resumed run's do (host/run-env.ts); written after the close, so no sweep takes it for the old one's.
  const address = (client.connection as { options?: { address?: string } }).options?.address;
  writeRunEnv(id, process.env, address ? { server: serverKey(address, client.options.namespace) } : {});
  const { resume: _resume, continueFrom: _continueFrom, ...input } = plan.input;
  await client.workflow.start(LOOP_WORKFLOW_TYPE, {
    workflowId: id,
    taskQueue: description.taskQueue,
    // A new execution under this release's rules: it closes as it ends (fsm/run/outcome.ts).
    args: [
      {
        ...input,
        options: { ...input.options, ...CURRENT_RUN_RULES },
        continueFrom: { runId: id, snapshot: plan.snapshot, upgrade: plan.upgrade },
      } satisfies LoopWorkflowInput,
    ],
    // The terminated execution frees the id; the chain goes on under it.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    memo: {
      ...(description.memo ?? {}),
      version: build.version,
      build_id: build.build_id,
      upgraded_from: plan.upgrade.fromBuild ?? 'unknown',
    },
    staticSummary: `ll-loop: ${input.definition.name} (moved onto ${build.build_id})`.slice(0, 190),
    ...(description.typedSearchAttributes ? { typedSearchAttributes: description.typedSearchAttributes } : {}),
  });
}

/**
 * A worker of this release serves no run it would break: a run started by a release older than
 * the ones this release supports may need a run rule whose "off" branch is retired
 * (workflows/run-rules.ts), and replaying it here would stop it with a non-determinism error.
 * So a long-lived worker (the checkout's, `ll-loop worker`, a pool's) does not start — and does
 * not replace the worker serving its queues — while such a run is open on them; the message
 * names each run, the release that started it, and how to finish it.
 *
 * One visibility query over the worker's queues; a run's release is its memo's `version` (every
 * run records it since 0.3.0; a run without one is older still). When visibility cannot answer,
 * the worker starts and says so: a run it cannot replay waits, unharmed, for the release that
 * started it.
 */
import type { Client } from '@temporalio/client';
import { LOOP_WORKFLOW_TYPE } from '../../workflows/definitions.js';
import { isSupportedRelease, oldestSupportedRelease, THIS_RELEASE } from '../../workflows/run-rules.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { clusterProblemOf } from '../../errors/cluster-errors.js';

/** An open run this release does not serve. */
export interface RetiredRun {
  workflowId: string;
  taskQueue: string;
  /** The release that started it; undefined for a run whose memo names none (before 0.3.0). */
  version: string | undefined;
}

/** The most runs one refusal lists (the rest are counted). */
const MAX_LISTED = 10;

/** The visibility query for the open loop runs on `queues`. */
function openRunsQuery(queues: readonly string[]): string {
  const quoted = queues.map((q) => `TaskQueue = '${q.replaceAll("'", "\\'")}'`).join(' OR ');
  return `WorkflowType = '${LOOP_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND (${quoted})`;
}

/** The open runs on `queues` that a release before the supported ones started (one visibility query). */
export async function openRetiredRuns(client: Client, queues: readonly string[]): Promise<RetiredRun[]> {
  const out: RetiredRun[] = [];
  for await (const info of client.workflow.list({ query: openRunsQuery(queues), pageSize: 1000 })) {
    const version = typeof info.memo?.version === 'string' ? info.memo.version : undefined;
    if (version !== undefined && isSupportedRelease(version)) continue;
    out.push({ workflowId: info.workflowId, taskQueue: info.taskQueue, version });
  }
  return out;
}

/** A worker start refused: open runs need a release this one no longer serves. */
export class RetiredRunsOpenError extends CliError {
  override readonly name = 'RetiredRunsOpenError';
  constructor(readonly runs: RetiredRun[]) {
    const lines = runs
      .slice(0, MAX_LISTED)
      .map(
        (r) =>
          `  ${r.workflowId} (started by ll-loop ${r.version ?? 'older than 0.3.0'}, queue ${r.taskQueue}): ` +
          `finish it with npx ll-loop@${r.version ?? '<its release>'} resume ${r.workflowId}, or ll-loop stop ${r.workflowId}`,
      );
    if (runs.length > MAX_LISTED) lines.push(`  … and ${runs.length - MAX_LISTED} more`);
    super(
      `this worker (ll-loop ${THIS_RELEASE}) serves runs of ll-loop ${oldestSupportedRelease()} and later; ` +
        `${runs.length === 1 ? 'an open run needs' : `${runs.length} open runs need`} an older release:\n${lines.join('\n')}`,
      'finish or stop each run above (the worker of its release serves it to its end), then start this worker again',
      EXIT.usage,
    );
  }
}

/**
 * Throw RetiredRunsOpenError while an open run on `queues` needs a release before the supported
 * ones. Visibility unavailable: log why and go on (the worker starts); a missing namespace is thrown.
 */
export async function refuseRetiredRuns(
  client: Client,
  queues: readonly string[],
  log: (line: string) => void,
): Promise<void> {
  let runs: RetiredRun[];
  try {
    runs = await openRetiredRuns(client, queues);
  } catch (err) {
    // A namespace the server lacks is no visibility trouble: the worker cannot serve at all, and
    // says so as it would without this check.
    if (clusterProblemOf(err)) throw err;
    log(
      `could not list the open runs on ${queues.join(', ')} (${(err as Error).message}); starting without checking for runs of releases before ${oldestSupportedRelease()}`,
    );
    return;
  }
  if (runs.length > 0) throw new RetiredRunsOpenError(runs);
}

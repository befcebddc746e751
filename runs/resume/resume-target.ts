/**
 * Which run `ll-loop resume <name|run-id>` means. A run id is taken as it is. A loop name picks
 * among that loop's runs: the open ones (their worker may be gone) and the closed ones that
 * stopped before a terminal state and have not been resumed yet; the newest wins, and two or more
 * open runs are ambiguous (each may be the one that lost its terminal).
 */
import type { Client } from '@temporalio/client';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { inspectRun, RunFinishedError, wasResumed, type RunCondition } from './resumable.js';
import { AmbiguousRunError, findRuns, requireTarget, runNotFound, type ProjectScope } from '../find/find-runs.js';

/** How many of a loop's newest runs are looked at. */
const SCAN_LIMIT = 50;

export type ResumeChoice = Extract<RunCondition, { kind: 'open' | 'stopped' }>;

/** The loop has runs, but none that could be continued. */
class NothingToResumeError extends CliError {
  override readonly name = 'NothingToResumeError';
  constructor(loop: string, latest: RunCondition | undefined) {
    const detail =
      latest?.kind === 'finished'
        ? `; its latest run ${latest.id} finished at its terminal state ${latest.result.final_state}`
        : '; every stopped run of it has been resumed already';
    super(
      `no run of ${loop} can be resumed${detail}`,
      `start a new run with ll-loop run ${loop}, or pass a run id (ll-loop history ${loop})`,
      EXIT.usage,
    );
  }
}

/** The run to resume (a run id from any project; a loop name among `project`'s runs), or a clear error. */
export async function chooseRun(client: Client, target: string, project?: ProjectScope): Promise<ResumeChoice> {
  requireTarget(target);
  const direct = await inspectRun(client, target);
  if (direct) {
    if (direct.kind === 'finished') throw new RunFinishedError(target, direct.result);
    return direct;
  }
  const runs = await findRuns(client, target, { limit: SCAN_LIMIT, ...(project ? { project } : {}) });
  if (runs.length === 0) throw await runNotFound(client, target, 'loop run', project);
  const open = runs.filter((r) => r.open);
  if (open.length > 1) throw new AmbiguousRunError(target, open, 'open runs');
  const openRun = open[0];
  let latestFinished: RunCondition | undefined;
  for (const run of runs) {
    if (run.open) continue;
    // An open run newer than every resumable closed one is the one meant.
    if (openRun && run.startTime < openRun.startTime) break;
    const condition = await inspectRun(client, run.id);
    if (!condition || condition.kind === 'open') continue;
    if (condition.kind === 'finished') {
      latestFinished ??= condition;
      continue;
    }
    if (await wasResumed(client, run.id)) continue;
    return condition;
  }
  if (openRun) {
    const condition = await inspectRun(client, openRun.id);
    if (condition && condition.kind !== 'finished') return condition;
  }
  throw new NothingToResumeError(target, latestFinished);
}

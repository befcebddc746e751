/**
 * `ll-loop list --failed [--json]`: the runs that did not succeed, as the Web UI's Failed filter
 * shows them — by the `LoopStatus` search attribute (`failed`, `limit`, `budget`, `timed_out`, `error`:
 * fsm/run/outcome.ts), and by the workflow's own status for runs that failed at the Temporal level.
 * Runs of 0.3.0 and older recorded only `done` and are found only when their workflow failed.
 * Sub-loops are left out: a failed sub-loop is an outcome its parent routed on (the parent's own
 * row says whether the run failed); the Web UI shows them under their parent. A failed run that
 * was resumed stays listed (it did fail), with its resume and how that ended (list-resumed.ts).
 */
import { FAILED_OUTCOMES } from '../../fsm/run/outcome.js';
import { EXIT } from '../../errors/exit-codes.js';
import { localTime, table } from '../../reporters/table.js';
import { listRuns, projectScope, type RunSummary } from '../../runs/find/find-runs.js';
import { withProjects } from './list-tables.js';
import { resumesOf } from './list-resumed.js';
import { withSession } from '../../temporal/session.js';
import { closedFailure } from '../../runs/find/closed-failure.js';
import { SCOPE_BUSY } from '../../workflows/scope-busy.js';
import { SCOPE_BUSY_OUTCOME } from '../../reporters/outcome-words.js';
import { failedStarts } from '../../host/start-queue.js';

/** One run as `list --failed` shows it. */
export interface FailedListing {
  id: string;
  loop: string;
  /**
   * The loop's outcome (LoopStatus), or the workflow's status where the run recorded none;
   * `scope busy` for a run its scope lock denied (it never began).
   */
  outcome: string;
  final_state: string | null;
  started_at: string;
  closed_at: string | null;
  cwd?: string;
  /** The run was resumed: the last run of its chain of resumes, and its outcome (or `running`). */
  resumed_as?: { id: string; outcome: string };
  /** Why a run queued by `run --background` never started (outcome `not started`). */
  reason?: string;
}

const BY_OUTCOME = `LoopStatus IN (${FAILED_OUTCOMES.map((o) => `'${o}'`).join(', ')})`;
const BY_STATUS = `ExecutionStatus IN ('Failed', 'TimedOut')`;

/**
 * The failed runs of the project at `cwd` (of every project with `allProjects`), newest first
 * (the workflow's status alone where the server lacks LoopStatus).
 */
export async function failedListings(
  cwd: string,
  opts: { limit?: number; allProjects?: boolean } = {},
): Promise<FailedListing[]> {
  const scope = { limit: opts.limit ?? 200, ...(opts.allProjects ? {} : { project: projectScope(cwd) }) };
  return withSession(cwd, async ({ client }) => {
    const runs = await listRuns(client, { where: `${BY_OUTCOME} OR ${BY_STATUS}`, ...scope }).catch(
      async (err: unknown) => {
        // A server without ll-loop's search attributes rejects the query naming LoopStatus.
        if (!/LoopStatus/.test((err as Error).message ?? '')) throw err;
        return listRuns(client, { where: BY_STATUS, ...scope });
      },
    );
    const top = runs.filter((run) => run.parent === undefined);
    const rows = top.map(listing);
    // Failed in Temporal without an outcome of its own: one denied its scopes says so.
    await Promise.all(
      top.map(async (run, i) => {
        if (run.status !== 'FAILED' || !noOutcome(run)) return;
        const failure = await closedFailure(client.workflow.getHandle(run.id)).catch(() => undefined);
        if (failure?.type === SCOPE_BUSY) rows[i]!.outcome = SCOPE_BUSY_OUTCOME;
      }),
    );
    // A failed run that was resumed: what the last run of its chain of resumes became.
    const resumes = await resumesOf(
      client,
      top.map((r) => r.id),
      scope.project,
    );
    const started = rows.map((row) => {
      const resumed = resumes.get(row.id);
      return resumed ? { ...row, resumed_as: { id: resumed.id, outcome: outcomeOf(resumed.run) } } : row;
    });
    // Runs `run --background` queued whose start failed: never on the server, listed from the project's worker files.
    const notStarted = failedStarts(projectScope(cwd).root).map((f): FailedListing => ({
      id: f.instance_id,
      loop: f.loop,
      outcome: 'not started',
      final_state: null,
      started_at: f.queued_at,
      closed_at: f.failed_at,
      cwd: f.cwd,
      reason: f.message,
    }));
    return [...notStarted, ...started].sort((a, b) => b.started_at.localeCompare(a.started_at));
  });
}

/** The run recorded no outcome of its own (LoopStatus): its workflow's status is all there is. */
function noOutcome(run: RunSummary): boolean {
  return !run.loopStatus || run.loopStatus === 'done' || run.loopStatus === 'running';
}

/** The loop's outcome (LoopStatus), or the workflow's status where the run recorded none. */
function outcomeOf(run: RunSummary): string {
  return noOutcome(run) ? run.status.toLowerCase().replace('_', ' ') : run.loopStatus!;
}

function listing(run: RunSummary): FailedListing {
  return {
    id: run.id,
    loop: run.loop,
    outcome: outcomeOf(run),
    final_state: run.loopState ?? null,
    started_at: run.startTime.toISOString(),
    closed_at: run.closeTime?.toISOString() ?? null,
    ...(run.cwd === undefined ? {} : { cwd: run.cwd }),
  };
}

export async function printFailed(opts: {
  cwd: string;
  json: boolean;
  allProjects?: boolean;
  out: (text: string) => void;
}): Promise<number> {
  const runs = await failedListings(opts.cwd, { allProjects: opts.allProjects === true });
  if (opts.json) {
    opts.out(`${JSON.stringify(runs, null, 2)}\n`);
    return EXIT.ok;
  }
  if (runs.length === 0) {
    opts.out(
      opts.allProjects
        ? 'no failed runs\n'
        : "no failed runs in this project (ll-loop list --failed --all-projects for every project's)\n",
    );
    return EXIT.ok;
  }
  const resumed = runs.some((r) => r.resumed_as !== undefined);
  const rows = runs.map((r) => [
    r.id,
    r.loop,
    r.outcome,
    r.final_state ?? '-',
    localTime(new Date(r.started_at)),
    r.closed_at ? localTime(new Date(r.closed_at)) : '-',
    ...(resumed ? [r.resumed_as ? `${r.resumed_as.id} → ${r.resumed_as.outcome}` : '-'] : []),
  ]);
  opts.out(
    table(
      withProjects(
        ['RUN ID', 'LOOP', 'OUTCOME', 'FINAL STATE', 'STARTED', 'ENDED', ...(resumed ? ['RESUMED AS'] : [])],
        rows,
        runs,
        opts.allProjects === true,
      ),
    ),
  );
  opts.out('details: ll-loop status <run id>, ll-loop history <loop> <run id>\n');
  return EXIT.ok;
}

/**
 * `ll-loop list --failed [--json]`: the runs that did not succeed, as the Web UI's Failed filter
 * shows them — by the `LoopStatus` search attribute (`failed`, `limit`, `budget`, `timed_out`, `error`:
 * fsm/outcome.ts), and by the workflow's own status for runs that failed at the Temporal level.
 * Runs of 0.3.0 and older recorded only `done` and are found only when their workflow failed.
 * Sub-loops are left out: a failed sub-loop is an outcome its parent routed on (the parent's own
 * row says whether the run failed); the Web UI shows them under their parent.
 */
import { FAILED_OUTCOMES } from '../../fsm/outcome.js';
import { EXIT } from '../exit-codes.js';
import { localTime, table } from '../reporters/table.js';
import { listRuns, type RunSummary } from '../runs/find-runs.js';
import { withSession } from '../temporal/session.js';

/** One run as `list --failed` shows it. */
export interface FailedListing {
  id: string;
  loop: string;
  /** The loop's outcome (LoopStatus), or the workflow's status where the run recorded none. */
  outcome: string;
  final_state: string | null;
  started_at: string;
  closed_at: string | null;
  cwd?: string;
}

const BY_OUTCOME = `LoopStatus IN (${FAILED_OUTCOMES.map((o) => `'${o}'`).join(', ')})`;
const BY_STATUS = `ExecutionStatus IN ('Failed', 'TimedOut')`;

/** The failed runs, newest first (the workflow's status alone where the server lacks LoopStatus). */
export async function failedListings(cwd: string, limit = 200): Promise<FailedListing[]> {
  return withSession(cwd, async ({ client }) => {
    const runs = await listRuns(client, { where: `${BY_OUTCOME} OR ${BY_STATUS}`, limit }).catch(async (err: unknown) => {
      // A server without ll-loop's search attributes rejects the query naming LoopStatus.
      if (!/LoopStatus/.test((err as Error).message ?? '')) throw err;
      return listRuns(client, { where: BY_STATUS, limit });
    });
    return runs.filter((run) => run.parent === undefined).map(listing);
  });
}

function listing(run: RunSummary): FailedListing {
  return {
    id: run.id,
    loop: run.loop,
    outcome: run.loopStatus && run.loopStatus !== 'done' && run.loopStatus !== 'running' ? run.loopStatus : run.status.toLowerCase().replace('_', ' '),
    final_state: run.loopState ?? null,
    started_at: run.startTime.toISOString(),
    closed_at: run.closeTime?.toISOString() ?? null,
    ...(run.cwd === undefined ? {} : { cwd: run.cwd }),
  };
}

export async function printFailed(opts: { cwd: string; json: boolean; out: (text: string) => void }): Promise<number> {
  const runs = await failedListings(opts.cwd);
  if (opts.json) {
    opts.out(`${JSON.stringify(runs, null, 2)}\n`);
    return EXIT.ok;
  }
  if (runs.length === 0) {
    opts.out('no failed runs\n');
    return EXIT.ok;
  }
  const rows = runs.map((r) => [r.id, r.loop, r.outcome, r.final_state ?? '-', localTime(new Date(r.started_at)), r.closed_at ? localTime(new Date(r.closed_at)) : '-']);
  opts.out(table([['RUN ID', 'LOOP', 'OUTCOME', 'FINAL STATE', 'STARTED', 'ENDED'], ...rows]));
  opts.out('details: ll-loop status <run id>, ll-loop history <loop> <run id>\n');
  return EXIT.ok;
}

/**
 * What became of a failed run that was resumed, for `list --failed`: a resume is a new run,
 * `<id>-r<n>` (runs/resume/resumable.ts `nextResumeId`), so a failed run stays failed while its
 * resume may have completed. Each failed run is shown with its latest resume, followed down the
 * chain (`<id>-r1-r1`, a resume of the resume) to the run that has none, and how that one ended.
 */
import type { Client } from '@temporalio/client';
import { listRuns, type ProjectScope, type RunSummary } from '../../runs/find/find-runs.js';

/** The failed runs asked about in one visibility query. */
const IDS_PER_QUERY = 25;

/** The resume a failed run ended in: the last of its chain of resumes. */
export interface ResumedAs {
  id: string;
  run: RunSummary;
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The newest direct resume of `id` among `runs` (`<id>-r<n>` with the largest n). */
function latestResume(id: string, byId: Map<string, RunSummary>): RunSummary | undefined {
  let best: { n: number; run: RunSummary } | undefined;
  const prefix = `${id}-r`;
  for (const [other, run] of byId) {
    if (!other.startsWith(prefix)) continue;
    const n = Number(other.slice(prefix.length));
    if (Number.isInteger(n) && n > 0 && (!best || n > best.n)) best = { n, run };
  }
  return best?.run;
}

/**
 * For each of `ids` that was resumed, the last run of its chain of resumes (of `project` only,
 * where given: a resume keeps its run's project). Runs a server cannot list are left out.
 */
export async function resumesOf(
  client: Client,
  ids: readonly string[],
  project?: ProjectScope,
): Promise<Map<string, ResumedAs>> {
  const byId = new Map<string, RunSummary>();
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const batch = ids.slice(i, i + IDS_PER_QUERY);
    const where = batch.map((id) => `WorkflowId STARTS_WITH ${quote(`${id}-r`)}`).join(' OR ');
    const runs = await listRuns(client, { where, limit: 1000, ...(project ? { project } : {}) }).catch(() => []);
    for (const run of runs) byId.set(run.id, run);
  }
  const out = new Map<string, ResumedAs>();
  for (const id of ids) {
    let last = latestResume(id, byId);
    for (let seen = 0; last && seen < 100; seen += 1) {
      const next = latestResume(last.id, byId);
      if (!next) break;
      last = next;
    }
    if (last) out.set(id, { id: last.id, run: last });
  }
  return out;
}

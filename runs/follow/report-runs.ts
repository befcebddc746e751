/**
 * The runs `ll-loop report` reads: the loop's runs of this checkout (visibility), those started
 * since `--since`, the newest `limit` of them with their events rebuilt from their histories.
 */
import type { Client } from '@temporalio/client';
import { listLoopNames } from '../../loader/load.js';
import { UNKNOWN_VERSION } from '../../loader/loop-version.js';
import { findRuns, projectScope, runNotFound } from '../find/find-runs.js';
import { followEvents } from './follow-events.js';
import type { ReportRun } from './report-figures.js';

/** The most runs the window is counted over (visibility is read up to this many). */
const MAX_LISTED = 1000;

export interface ReportQuery {
  cwd: string;
  loop: string;
  since?: Date;
  limit: number;
}

/**
 * The runs of the window, newest first, and how many the window holds.
 *
 * @throws RunNotFoundError when the name is no loop of this checkout and has no runs here
 */
export async function reportRuns(client: Client, q: ReportQuery): Promise<{ runs: ReportRun[]; found: number }> {
  const project = projectScope(q.cwd);
  const all = await findRuns(client, q.loop, { project, limit: MAX_LISTED });
  const named = all.filter((r) => r.loop === q.loop);
  if (named.length === 0 && !listLoopNames(q.cwd).includes(q.loop))
    throw await runNotFound(client, q.loop, 'loop', project);
  const inWindow = named.filter((r) => q.since === undefined || r.startTime >= q.since);
  const read = inWindow.slice(0, q.limit);
  const runs: ReportRun[] = [];
  // A few at a time: each is a history read and a replay.
  for (let i = 0; i < read.length; i += 4) {
    const batch = read.slice(i, i + 4);
    const events = await Promise.all(batch.map((r) => followEvents(client, r.id, { children: false })));
    batch.forEach((r, j) =>
      runs.push({
        id: r.id,
        loop_version: r.loopVersion ?? UNKNOWN_VERSION,
        started_at: r.startTime.toISOString(),
        status: r.status,
        events: events[j]!.events,
        ...(events[j]!.end?.status === 'failed' && events[j]!.end.failure
          ? { failure_type: events[j]!.end.failure.type }
          : {}),
      }),
    );
  }
  return { runs, found: inWindow.length };
}

/**
 * The project's runs as the `ll-loop ui` server keeps them: read whole once (up to {@link limit}
 * runs, one visibility call), then, every poll, only what may have changed since: the open runs and
 * those started or closed since the previous reading (less {@link MARGIN_MS}, for the visibility
 * store's lag). A closed run never changes, so a list of 1,000 runs costs a poll only its open and
 * new ones. The whole list is read again every {@link FULL_EVERY_MS} (runs removed by retention,
 * a record the store showed later than the margin).
 */
import type { RunSummary } from '../../runs/find/find-runs.js';

/** How far before the previous reading's start a poll looks back. */
export const MARGIN_MS = 10_000;
/** How often the whole list is read again. */
export const FULL_EVERY_MS = 5 * 60_000;

/** Lists runs, narrowed by a visibility query when `where` is given (runs/find/find-runs.ts `listRuns`). */
export type ListRuns = (where?: string) => Promise<RunSummary[]>;

/** The visibility query of a poll: what may have changed since `since` (ms). */
export function changedSince(since: number): string {
  const t = new Date(since).toISOString();
  return `ExecutionStatus = 'Running' OR StartTime >= '${t}' OR CloseTime >= '${t}'`;
}

export class RunsIndex {
  private rows = new Map<string, RunSummary>();
  private since: number | undefined;
  private fullAt = 0;

  constructor(
    private readonly list: ListRuns,
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The runs now, newest first (at most `limit`). */
  async read(): Promise<RunSummary[]> {
    const started = this.now();
    if (this.since === undefined || started - this.fullAt >= FULL_EVERY_MS) {
      const runs = await this.list();
      this.rows = new Map(runs.map((r) => [r.id, r]));
      this.fullAt = started;
    } else {
      for (const run of await this.list(changedSince(this.since))) this.rows.set(run.id, run);
    }
    this.since = started - MARGIN_MS;
    const newest = [...this.rows.values()].sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
    if (newest.length > this.limit) {
      for (const gone of newest.slice(this.limit)) this.rows.delete(gone.id);
      newest.length = this.limit;
    }
    return newest;
  }
}

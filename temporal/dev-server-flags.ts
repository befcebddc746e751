/**
 * The flags ll-loop gives `temporal server start-dev` beyond its defaults: the embedded server's
 * (temporal/dev-server.ts) and the test tiers' own servers use the same ones.
 */

/**
 * Flags for `temporal server start-dev` beyond the defaults.
 * - Timers. The dev server fires timers up to about 1 s late (its timer queue reads ahead by
 *   `history.timerProcessorMaxTimeShift`, 1 s); ll-loop's short durable sleeps — backoff, retry
 *   delays, maintain_delay, the local-activity flush — would all take a second. 10 ms keeps them
 *   close to what the loop asked for.
 * - Task hand-off. Every workflow, activity and child-start task reaches a worker through the
 *   history shard's transfer queue, which reads new tasks at most
 *   `history.transferProcessorMaxPollRPS` times a second per shard (20). A cluster spreads its
 *   runs over hundreds of shards; the dev server has one, so every hand-off of every run on the
 *   machine waited for the next of 20 reads a second: on average half of 50 ms, twice per
 *   transition. Lifted, a default (remote) transition takes 24–28 ms instead of 50 ms and a
 *   fan-out of 100 × `sleep 0.5` on 10 lanes 7.0 s instead of 8.5 s (docs/architecture.md), for
 *   the same server CPU per task: the reads are only made when a task was written.
 */
export function devServerTuningFlags(): string[] {
  return [
    '--dynamic-config-value',
    'history.timerProcessorMaxTimeShift="10ms"',
    '--dynamic-config-value',
    `history.transferProcessorMaxPollRPS=${TRANSFER_READS_PER_SECOND}`,
  ];
}

/** How often the dev server's one shard may read its new tasks (Temporal's default: 20). */
export const TRANSFER_READS_PER_SECOND = 1000;

/**
 * The on-disk store. SQLite's write-ahead log instead of its default rollback journal: each
 * commit appends to one file and syncs it once, where the rollback journal syncs the journal and
 * the database; every history event is a commit, so starting children, activities and timers all
 * wait less on the disk (a fan-out of 100 items of `sleep 0.5` took 10.2–10.5 s against 13.8–16.8 s
 * on a busy machine). `synchronous` stays at its default (FULL): a commit is on disk before the
 * server answers, so a run loses nothing to a power cut that it would not lose without it.
 * The mode is kept in the file, so a store made by an earlier release switches on its next start.
 */
export function persistenceFlags(dbPath: string): string[] {
  return ['--db-filename', dbPath, '--sqlite-pragma', 'journal_mode=wal'];
}

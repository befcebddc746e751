/**
 * The worker's journal of completed actions: no completed action runs again because its
 * completion was lost.
 *
 * An action's result reaches its run only through the Temporal server: a remote activity's
 * completion RPC, or (a quick action run as a local activity) the completion of the workflow
 * task that ran it. When the server is unreachable at that moment (killed, restarting), the
 * completion is lost: Temporal retries the activity (a remote one after its heartbeat timeout;
 * a local one when the workflow task is replayed), and without a journal the action would run a
 * second time — appending twice, pushing twice, spending an agent call twice.
 *
 * Invariants:
 * - the key is (workflow id, run id, call): the run's name for the call (RunActionInput.call_key,
 *   workflows/action-calls.ts) when it gives one, else the activity id. Either is the same for a
 *   retry of the same call — a new attempt, a replayed workflow task — and the run's name is also
 *   the same for the re-schedules of a pinned run waiting for its host (a new activity id each);
 *   each FSM step or `retry:` attempt is a new call, and a reset or continued run has a new run id;
 * - a burst's actions (activities/run-burst.ts) are journaled one by one as they end, each under
 *   the burst's activity id and its place in the burst ({@link burstActionKey}); a retried burst
 *   is given the results of those that completed, in order, and runs only the rest;
 * - an entry is written (to a temporary name, then renamed: never half-written) before the
 *   result is returned, so every result Temporal could have lost is on file. It is not fsynced:
 *   it must outlive the server and the worker process, which the page cache does; a machine that
 *   crashes loses the worker's work in flight anyway, and an entry torn by that reads as none
 *   (the action runs again, as without a journal). An fsync would cost every quick action
 *   milliseconds for that case alone;
 * - an entry holds exactly what the activity returns to the workflow, which has its secrets
 *   masked already (activities/secret-mask.ts): the journal holds nothing the run's history does
 *   not; its files are the user's alone (0600 in 0700 directories);
 * - an activity invoked again with an entry returns the entry, marked `redelivered`, without
 *   running anything;
 * - entries of runs untouched for {@link JOURNAL_KEEP_MS} are swept when a worker starts.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ActionResult } from '../fsm/types.js';

/** How long a run's entries are kept after its last action completed: longer than any outage a run survives. */
export const JOURNAL_KEEP_MS = 7 * 24 * 3600 * 1000;

/** One action call of one run (`activityId`: the run's name for the call, or the activity id). */
export interface JournalKey {
  workflowId: string;
  runId: string;
  activityId: string;
}

interface JournalEntry {
  workflow_id: string;
  run_id: string;
  activity_id: string;
  state: string;
  completed_at: string;
  result: ActionResult;
}

/** `<dir>/<hash of workflow id and run id>/<activity id>.json`. */
export function journalFile(dir: string, key: JournalKey): string {
  const run = createHash('sha256').update(`${key.workflowId}\n${key.runId}`).digest('hex').slice(0, 32);
  return join(dir, run, `${key.activityId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

/** The journaled result of this call, when it completed before (an unreadable entry counts as none). */
export function readJournal(dir: string, key: JournalKey): ActionResult | undefined {
  return readEntry(dir, key)?.result;
}

/** This call's entry, when it completed before. */
function readEntry(dir: string, key: JournalKey): JournalEntry | undefined {
  let entry: JournalEntry;
  try {
    entry = JSON.parse(readFileSync(journalFile(dir, key), 'utf8')) as JournalEntry;
  } catch {
    return undefined;
  }
  // The file name is a hash: the entry must name this very call.
  if (entry.workflow_id !== key.workflowId || entry.run_id !== key.runId || entry.activity_id !== key.activityId)
    return undefined;
  return entry;
}

/** A burst's action that completed before: its state and its result as it was returned. */
export interface JournaledAction {
  state: string;
  result: ActionResult;
}

/**
 * The key of a burst's `index`th action (from 0). A burst is one local activity: its activity id
 * is the workflow's sequence number for it, the same for each attempt and for its schedule in a
 * replayed workflow task; a retry starts from the same workflow state, so the same actions come
 * up in the same order as long as each gets the result it had, which the journal gives back.
 */
export function burstActionKey(burst: JournalKey, index: number): JournalKey {
  return { ...burst, activityId: `burst-${burst.activityId}-${index}` };
}

/** The actions of burst `burst` journaled before, from its first on, at most `max`. */
export function readBurstJournal(dir: string, burst: JournalKey, max: number): JournaledAction[] {
  const done: JournaledAction[] = [];
  for (let i = 0; i < max; i += 1) {
    const entry = readEntry(dir, burstActionKey(burst, i));
    if (entry === undefined) break;
    done.push({ state: entry.state, result: entry.result });
  }
  return done;
}

/** Record a completed call, atomically. */
export function writeJournal(
  dir: string,
  key: JournalKey,
  state: string,
  result: ActionResult,
  now = new Date(),
): void {
  const file = journalFile(dir, key);
  const runDir = join(file, '..');
  mkdirSync(runDir, { recursive: true, mode: 0o700 });
  const entry: JournalEntry = {
    workflow_id: key.workflowId,
    run_id: key.runId,
    activity_id: key.activityId,
    state,
    completed_at: now.toISOString(),
    result,
  };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(entry), { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * How often a journal is swept at most. Every worker sweeps when it starts, and a machine that
 * starts many (a test suite, a pool host) kept stat-ing every run's directory each time: 3,500
 * directories took 120 ms of each worker's start. Runs are kept a week, so an hour late is nothing.
 */
export const SWEEP_EVERY_MS = 3600 * 1000;

/** The file whose mtime is the journal's last sweep (a dot file: never taken for a run). */
const SWEPT_MARK = '.swept';

/**
 * Remove the entries of runs whose last entry is older than `keepMs`, unless the journal was
 * swept in the last {@link SWEEP_EVERY_MS}. Returns how many runs were removed. Never throws.
 */
export function sweepJournal(dir: string, keepMs = JOURNAL_KEEP_MS, now = Date.now()): number {
  const mark = join(dir, SWEPT_MARK);
  try {
    if (now - statSync(mark).mtimeMs < SWEEP_EVERY_MS) return 0;
  } catch {
    // never swept (or no journal yet)
  }
  let removed = 0;
  let runs: string[];
  try {
    runs = readdirSync(dir);
    writeFileSync(mark, '');
    utimesSync(mark, now / 1000, now / 1000);
  } catch {
    return 0;
  }
  for (const run of runs) {
    if (run.startsWith('.')) continue;
    try {
      const path = join(dir, run);
      // A directory's mtime moves with every entry written into it: the run's last completion.
      if (now - statSync(path).mtimeMs > keepMs) {
        rmSync(path, { recursive: true, force: true });
        removed += 1;
      }
    } catch {
      // Removed by another worker in between, or unreadable: left for the next sweep.
    }
  }
  return removed;
}

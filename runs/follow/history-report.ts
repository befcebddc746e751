/**
 * The report `ll-loop history` prints: a loop's past runs (visibility, each closed run's result,
 * each open run's status query), or one run's events rebuilt from its history (followEvents) with
 * its lineage. Made by the command on its own session, or by the checkout's worker for it
 * (worker/socket/requests.ts).
 */
import type { Client, Connection } from '@temporalio/client';
import { outcomeOf, type LoopOutcome } from '../../fsm/run/outcome.js';
import { outcomeOfStatus, SCOPE_BUSY_OUTCOME } from '../../reporters/outcome-words.js';
import { closedFailure } from '../find/closed-failure.js';
import { SCOPE_BUSY } from '../../workflows/scope-busy.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import { listLoopNames } from '../../loader/load.js';
import { UsageError } from '../../errors/errors.js';
import { UNKNOWN_VERSION } from '../../loader/loop-version.js';
import { findRuns, projectScope, RunNotFoundError, runNotFound, type RunSummary } from '../find/find-runs.js';
import { loopNameOfPath } from '../find/loop-path-name.js';
import { lineageOf } from '../find/lineage.js';
import { closedResult, mayHaveResult, queryStatus } from '../find/run-target.js';
import { followEvents } from './follow-events.js';
import type { Spend, TerminatedBy } from '../../fsm/types.js';
import type { Lineage } from '../find/lineage.js';
import type { RunEnd } from './run-close.js';

/** What `history` is asked for. */
export interface HistoryQuery {
  /** The command's directory (its project: a loop name means this project's runs). */
  cwd: string;
  /** A loop name, or a run id in its place. */
  loop: string;
  runId?: string;
  /** Only these event types (`--event`, repeatable). */
  events?: string[];
  /** Only events of this state (`--state`). */
  state?: string;
}

/** One past run, as `history <name>` lists it. */
export interface RunHistoryEntry {
  id: string;
  status: string;
  started_at: string;
  closed_at?: string;
  /** The version of the loop it ran (loader/loop-version.ts); `unknown` for runs of earlier releases. */
  loop_version: string;
  iterations: number | null;
  duration_ms: number | null;
  terminated_by: TerminatedBy | null;
  final_state: string | null;
  /** How it ended (fsm/run/outcome.ts); without a loop result, what its workflow's status means; `running` while open. */
  outcome: LoopOutcome | typeof SCOPE_BUSY_OUTCOME | null;
  /** True when it ended in a terminal state marked `failure: true`. */
  failure: boolean | null;
  /** Open runs: false when no worker answered. */
  worker?: boolean;
  /** What its agent calls spent (runs whose calls reported usage). */
  spent?: Spend;
}

/** One run's rebuilt events (after filters), as `history <name> <run-id> --json` prints them. */
export interface RunEventsReport extends Lineage {
  id: string;
  loop: string;
  status: string;
  end?: RunEnd;
  events: TimedEvent[];
  warnings: string[];
  written?: string;
}

/** A loop's past runs, or one run's events. */
export type HistoryReport =
  { kind: 'runs'; loop: string; entries: RunHistoryEntry[] } | { kind: 'events'; report: RunEventsReport };

type Reader = { client: Client; connection: Connection };

/** Map with at most `limit` calls in flight. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

async function entryFor({ client, connection }: Reader, run: RunSummary): Promise<RunHistoryEntry> {
  const handle = client.workflow.getHandle(run.id);
  const entry: RunHistoryEntry = {
    id: run.id,
    status: run.status.toLowerCase(),
    started_at: run.startTime.toISOString(),
    loop_version: run.loopVersion ?? UNKNOWN_VERSION,
    iterations: null,
    duration_ms: run.closeTime ? run.closeTime.getTime() - run.startTime.getTime() : null,
    terminated_by: null,
    final_state: null,
    outcome: run.open ? 'running' : null,
    failure: null,
    ...(run.closeTime ? { closed_at: run.closeTime.toISOString() } : {}),
  };
  if (run.open) {
    const live = await queryStatus(connection, handle).catch(() => null);
    entry.worker = live !== null;
    if (live)
      Object.assign(entry, {
        iterations: live.iteration,
        duration_ms: live.elapsed_ms,
        final_state: live.state,
        ...(live.spent ? { spent: live.spent } : {}),
      });
  } else {
    // Without a loop result (terminated, failed before it began: a scope denied), the outcome its
    // workflow's status means, as `status` and `list` say it.
    entry.outcome = outcomeOfClosed(run.status);
    const result = mayHaveResult(run.status) ? await closedResult(connection, handle) : undefined;
    // Failed with no loop result: one its scope lock refused never began, as `list --failed` says.
    if (!result && run.status === 'FAILED') {
      const failure = await closedFailure(handle).catch(() => undefined);
      if (failure?.type === SCOPE_BUSY) entry.outcome = SCOPE_BUSY_OUTCOME;
    }
    if (result) {
      Object.assign(entry, {
        iterations: result.iterations,
        duration_ms: result.duration_ms,
        terminated_by: result.terminated_by,
        final_state: result.final_state,
        outcome: outcomeOf(result),
        failure: result.failure,
      });
      if (result.spent) entry.spent = result.spent;
    }
  }
  return entry;
}

/** A closed run's outcome by its workflow's status alone: stopped, timed out, failed (or succeeded). */
function outcomeOfClosed(status: string): LoopOutcome {
  const outcome = outcomeOfStatus(status);
  return outcome === 'succeeded' || outcome === 'stopped' || outcome === 'timed_out' ? outcome : 'failed';
}

/** Whether an event concerns a state (its `state`, a route's `from`, the end's `final_state`). */
function ofState(event: TimedEvent, state: string): boolean {
  if ('state' in event && event.state === state) return true;
  return ('from' in event && event.from === state) || ('final_state' in event && event.final_state === state);
}

/**
 * One run's events, read from its Temporal history, filtered; `onRebuilt` receives every event
 * before the filters (`--write`).
 */
async function runEvents(
  reader: Reader,
  q: HistoryQuery & { runId: string },
  onRebuilt?: (runId: string, events: TimedEvent[]) => void,
): Promise<RunEventsReport> {
  const [run] = (await findRuns(reader.client, q.runId)).filter((r) => r.id === q.runId);
  if (!run) throw new RunNotFoundError(q.runId, 'run');
  if (run.loop !== q.loop && run.id !== q.loop) {
    throw new UsageError(
      `run ${run.id} is a run of loop "${run.loop}", not "${q.loop}"`,
      `ll-loop history ${run.loop} ${run.id}`,
    );
  }
  const rebuilt = await followEvents(reader.client, run.id, { children: false });
  onRebuilt?.(run.id, rebuilt.events);
  const types = q.events ?? [];
  const events = rebuilt.events.filter(
    (e) => (types.length === 0 || types.includes(e.event)) && (q.state === undefined || ofState(e, q.state)),
  );
  const lineage = await lineageOf(reader.client, run.id);
  return {
    id: run.id,
    loop: run.loop,
    status: run.status.toLowerCase(),
    ...lineage,
    events,
    warnings: rebuilt.warnings,
    ...(rebuilt.end ? { end: rebuilt.end } : {}),
  };
}

/**
 * The report for a query: with a run id (or a run id in place of the loop name), that run's
 * events; else the loop's runs in this project, newest first.
 *
 * @throws RunNotFoundError for a name that is neither a loop here nor a run; UsageError for
 *   filters without a run id, or a run of another loop
 */
export async function historyReportOf(
  reader: Reader,
  q: HistoryQuery,
  opts: { write?: boolean; onRebuilt?: (runId: string, events: TimedEvent[]) => void } = {},
): Promise<HistoryReport> {
  // A loop file's path, as `run` took it, means the loop it names.
  q = { ...q, loop: loopNameOfPath(q.loop, q.cwd) ?? q.loop };
  let runId = q.runId;
  let runs: RunSummary[] | undefined;
  // A loop name means this project's runs; a run id, any project's.
  const project = projectScope(q.cwd);
  if (runId === undefined) {
    runs = await findRuns(reader.client, q.loop, { project });
    // `history <run-id>`: a run id in place of the name shows that run's events.
    if (runs.length === 1 && runs[0]!.id === q.loop) runId = q.loop;
    else if (runs.length === 0 && !listLoopNames(q.cwd).includes(q.loop))
      throw await runNotFound(reader.client, q.loop, 'loop or run', project);
  }
  if (runId === undefined) {
    if (q.events?.length || q.state !== undefined || opts.write)
      throw new UsageError('--event, --state and --write need a run id', `ll-loop history ${q.loop} <run-id>`);
    const found = runs ?? [];
    return { kind: 'runs', loop: q.loop, entries: await mapLimit(found, 8, (run) => entryFor(reader, run)) };
  }
  return { kind: 'events', report: await runEvents(reader, { ...q, runId }, opts.onRebuilt) };
}

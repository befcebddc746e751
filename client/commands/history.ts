/**
 * `ll-loop history <name> [run-id]`: a loop's past runs, or one run's events — read from Temporal
 * (visibility for the runs; for the events, its history replayed through the workflow bundle:
 * runs/follow-events.ts), so it works for runs started on other machines. `--write` (re)writes `.loops/.running/<id>.events.jsonl`.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { ensureRuntimeDir } from '../../loader/runtime-dir.js';
import { dirname } from 'node:path';
import { formatDuration, oneLine } from '../../fsm/format.js';
import { outcomeOf, type LoopOutcome } from '../../fsm/run/outcome.js';
import type { Spend, TerminatedBy } from '../../fsm/types.js';
import { spendLine } from '../../fsm/run/budget.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import { eventsPath } from '../../host/run-files.js';
import { bool, list, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { listLoopNames } from '../../loader/load.js';
import { plainFields } from '../reporters/plain-event.js';
import { safeText } from '../reporters/safe-text.js';
import { localTime, table } from '../reporters/table.js';
import { followEvents, type RunEnd } from '../follow/follow-events.js';
import { closedResult, mayHaveResult, queryStatus } from '../runs/run-target.js';
import {
  findRuns,
  projectScope,
  RunNotFoundError,
  runNotFound,
  type ProjectScope,
  type RunSummary,
} from '../runs/find-runs.js';
import { withSession, type Session } from '../temporal/session.js';
import { lineageLines, lineageOf, type Lineage } from '../control/lineage.js';

/** Options of {@link historyCommand}; `out` receives stdout, `err` warnings. */
export interface HistoryOptions {
  cwd: string;
  loop: string;
  runId?: string;
  json: boolean;
  /** Only these event types (`--event`, repeatable). */
  events?: string[];
  /** Only events of this state (`--state`). */
  state?: string;
  /** Rewrite the run's events file from the rebuild. */
  write?: boolean;
  out: (text: string) => void;
  err?: (text: string) => void;
}

/** One past run, as `history <name>` lists it. */
export interface RunHistoryEntry {
  id: string;
  status: string;
  started_at: string;
  closed_at?: string;
  iterations: number | null;
  duration_ms: number | null;
  terminated_by: TerminatedBy | null;
  final_state: string | null;
  /** How it ended (fsm/run/outcome.ts); null while open or when the run left no result. */
  outcome: LoopOutcome | null;
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

async function entryFor({ client, connection }: Session, run: RunSummary): Promise<RunHistoryEntry> {
  const handle = client.workflow.getHandle(run.id);
  const entry: RunHistoryEntry = {
    id: run.id,
    status: run.status.toLowerCase(),
    started_at: run.startTime.toISOString(),
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
  } else if (mayHaveResult(run.status)) {
    const result = await closedResult(connection, handle);
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

/** The loop's runs in Temporal, newest first. */
export async function loopRuns(
  session: Session,
  loop: string,
  project: ProjectScope,
  runs?: RunSummary[],
): Promise<RunHistoryEntry[]> {
  return mapLimit(runs ?? (await findRuns(session.client, loop, { project })), 8, (run) => entryFor(session, run));
}

function printRuns(loop: string, entries: RunHistoryEntry[], out: (t: string) => void): void {
  if (entries.length === 0) {
    out(`no runs of ${loop} in this project (a run id shows a run of any project)\n`);
    return;
  }
  const rows = entries.map((e) => [
    e.id,
    e.worker === false ? 'running (no worker)' : e.status,
    localTime(new Date(e.started_at)),
    e.iterations === null ? '-' : String(e.iterations),
    e.duration_ms === null ? '-' : formatDuration(e.duration_ms),
    e.outcome ?? '-',
    e.terminated_by ? endedBy(e) : e.final_state && e.status === 'running' ? `in ${e.final_state}` : '-',
  ]);
  const header = ['RUN ID', 'STATUS', 'STARTED', 'ITERATIONS', 'DURATION', 'OUTCOME', 'ENDED BY'];
  // A SPENT column only when some run's agent calls reported usage: other listings stay as they were.
  if (entries.some((e) => e.spent)) {
    header.push('SPENT');
    rows.forEach((row, i) => row.push(spendLine(entries[i]!.spent, undefined) ?? '-'));
  }
  out(table([header, ...rows]));
}

/** How a run ended, a failure terminal told apart from a success terminal. */
function endedBy(e: RunHistoryEntry): string {
  if (e.terminated_by === 'terminal') return `${e.failure ? 'failure terminal' : 'terminal'} (${e.final_state})`;
  return `${e.terminated_by} (${e.final_state})`;
}

/** Whether an event concerns a state (its `state`, a route's `from`, the end's `final_state`). */
function ofState(event: TimedEvent, state: string): boolean {
  if ('state' in event && event.state === state) return true;
  return ('from' in event && event.from === state) || ('final_state' in event && event.final_state === state);
}

function formatEvent(event: TimedEvent): string {
  // Every event name, the widest (rate_limit_resume) included, gets a space after it.
  return `${event.ts}  ${event.event.padEnd(18)}${plainFields(event)}`.trimEnd();
}

/** Replace the events file with `events`, atomically. */
function writeEvents(file: string, events: TimedEvent[]): void {
  // `.loops/.running/`: git-ignored like every runtime directory (loader/runtime-dir.ts).
  ensureRuntimeDir(dirname(file));
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  renameSync(temporary, file);
}

/** One run's events, read from its Temporal history, filtered. */
export async function runEvents(session: Session, opts: HistoryOptions & { runId: string }): Promise<RunEventsReport> {
  const [run] = (await findRuns(session.client, opts.runId)).filter((r) => r.id === opts.runId);
  if (!run) throw new RunNotFoundError(opts.runId, 'run');
  if (run.loop !== opts.loop && run.id !== opts.loop) {
    throw new UsageError(
      `run ${run.id} is a run of loop "${run.loop}", not "${opts.loop}"`,
      `ll-loop history ${run.loop} ${run.id}`,
    );
  }
  const rebuilt = await followEvents(session.client, run.id, { children: false });
  const types = opts.events ?? [];
  const events = rebuilt.events.filter(
    (e) => (types.length === 0 || types.includes(e.event)) && (opts.state === undefined || ofState(e, opts.state)),
  );
  const lineage = await lineageOf(session.client, run.id);
  const report: RunEventsReport = {
    id: run.id,
    loop: run.loop,
    status: run.status.toLowerCase(),
    ...lineage,
    events,
    warnings: rebuilt.warnings,
    ...(rebuilt.end ? { end: rebuilt.end } : {}),
  };
  if (opts.write) {
    report.written = eventsPath(opts.cwd, run.id);
    writeEvents(report.written, rebuilt.events);
  }
  return report;
}

/** `ll-loop history`. Returns the exit code. */
export async function historyCommand(opts: HistoryOptions): Promise<number> {
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  return withSession(opts.cwd, async (session) => {
    let runId = opts.runId;
    let runs: RunSummary[] | undefined;
    // A loop name means this project's runs; a run id, any project's.
    const project = projectScope(opts.cwd);
    if (runId === undefined) {
      runs = await findRuns(session.client, opts.loop, { project });
      // `history <run-id>`: a run id in place of the name shows that run's events.
      if (runs.length === 1 && runs[0]!.id === opts.loop) runId = opts.loop;
      else if (runs.length === 0 && !listLoopNames(opts.cwd).includes(opts.loop))
        throw await runNotFound(session.client, opts.loop, 'loop or run', project);
    }
    if (runId === undefined) {
      if (opts.events?.length || opts.state !== undefined || opts.write)
        throw new UsageError('--event, --state and --write need a run id', `ll-loop history ${opts.loop} <run-id>`);
      const entries = await loopRuns(session, opts.loop, project, runs);
      if (opts.json) opts.out(`${JSON.stringify(entries, null, 2)}\n`);
      else printRuns(opts.loop, entries, opts.out);
      return EXIT.ok;
    }
    const report = await runEvents(session, { ...opts, runId });
    for (const warning of report.warnings) err(`warning: ${warning}\n`);
    if (opts.json) {
      opts.out(`${JSON.stringify(report, null, 2)}\n`);
      return EXIT.ok;
    }
    const lineage = lineageLines(report);
    if (report.forked_from) opts.out(`${lineage.shift()}\n`);
    for (const event of report.events) opts.out(`${formatEvent(event)}\n`);
    if (report.events.length === 0) opts.out('no events match\n');
    for (const line of lineage) opts.out(`${line}\n`);
    if (report.written) opts.out(`wrote ${report.written}\n`);
    return EXIT.ok;
  });
}

/** `ll-loop history` in the command table. */
export const historySpec: CommandSpec = {
  usage: "history <name> [run-id] [--event T]… [--state S] [--write] [--json]   past runs, or one run's events",
  flags: {
    event: { type: 'string', multiple: true },
    state: { type: 'string' },
    write: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  run(ctx) {
    const [loop, runId, ...rest] = ctx.positionals;
    if (loop === undefined) throw new UsageError('history needs a loop name', 'll-loop history <name> [run-id]');
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, 'll-loop history <name> [run-id]');
    const state = str(ctx, 'state');
    return historyCommand({
      cwd: ctx.cwd,
      loop,
      json: bool(ctx, 'json'),
      events: list(ctx, 'event'),
      write: bool(ctx, 'write'),
      out: ctx.out,
      err: ctx.err,
      ...(runId === undefined ? {} : { runId }),
      ...(state === undefined ? {} : { state }),
    });
  },
};

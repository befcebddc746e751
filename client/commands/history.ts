/**
 * `ll-loop history <name> [run-id]`: a loop's past runs, or one run's events — read from Temporal
 * (visibility for the runs; for the events, its history replayed through the workflow bundle:
 * runs/follow-events.ts), so it works for runs started on other machines. `--write` (re)writes `.loops/.running/<id>.events.jsonl`.
 */
import { EVENT_FIELDS } from '../../fsm/run/event-shape.js';
import { didYouMean } from '../../fsm/suggest.js';
import { renameSync, writeFileSync } from 'node:fs';
import { ensureRuntimeDir } from '../../loader/runtime-dir.js';
import { dirname } from 'node:path';
import { formatDuration } from '../../fsm/format.js';
import { spendLine } from '../../fsm/run/budget.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import { eventsPath } from '../../host/run-files.js';
import { bool, list, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { positiveInt } from './argument-errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { plainFields } from '../../reporters/plain-event.js';
import { localTime, table } from '../../reporters/table.js';
import { runsService } from '../../runs/service/runs-service.js';
import type {
  HistoryQuery,
  HistoryReport,
  RunEventsReport,
  RunHistoryEntry,
} from '../../runs/follow/history-report.js';
import type { Lineage } from '../../runs/find/lineage.js';
import { SCOPE_BUSY } from '../../workflows/scope-busy.js';
import type { ScopeBusyDetails } from '../../workflows/scope-lock-definitions.js';
import { ScopeBusyError } from '../../runs/scopes/scope-busy-error.js';

export type { RunEventsReport, RunHistoryEntry } from '../../runs/follow/history-report.js';

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
  /** Only the last N events of the run, or the N newest runs (`--tail N`/`-n N`, little-loops'). */
  tail?: number;
  out: (text: string) => void;
  err?: (text: string) => void;
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
  // Last: the loop version each run ran (loader/loop-version.ts).
  header.push('VERSION');
  rows.forEach((row, i) => row.push(entries[i]!.loop_version));
  out(table([header, ...rows]));
}

/** How a run ended, a failure terminal told apart from a success terminal. */
function endedBy(e: RunHistoryEntry): string {
  if (e.terminated_by === 'terminal') return `${e.failure ? 'failure terminal' : 'terminal'} (${e.final_state})`;
  return `${e.terminated_by} (${e.final_state})`;
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

/** The lines `history` prints for a run's lineage through `ll-loop rerun` (none without one). */
function lineageLines(l: Lineage): string[] {
  const lines: string[] = [];
  if (l.forked_from) lines.push(`forked from ${l.forked_from} (ll-loop rerun)`);
  for (const r of l.reruns ?? []) lines.push(`rerun as ${r.id}${r.forked_from ? ` (from ${r.forked_from})` : ''}`);
  return lines;
}

/** `--write`: the report made here, and the run's rebuilt events written to this project's events file. */
async function writtenReport(opts: HistoryOptions, query: HistoryQuery): Promise<HistoryReport> {
  const [{ withSession }, { historyReportOf }] = await Promise.all([
    import('../../temporal/session.js'),
    import('../../runs/follow/history-report.js'),
  ]);
  return withSession(opts.cwd, async (session) => {
    let written: string | undefined;
    const write = (runId: string, events: TimedEvent[]): void => {
      written = eventsPath(opts.cwd, runId);
      writeEvents(written, events);
    };
    const report = await historyReportOf(session, query, { write: true, onRebuilt: write });
    if (report.kind === 'events' && written !== undefined) report.report.written = written;
    return report;
  });
}

/**
 * Why a run shows no events: none matched the filters, or it never began — denied its scopes
 * (ScopeBusy), it failed before its first event; the message says by whom, and the fix.
 */
function withoutEvents(report: RunEventsReport, query: HistoryQuery): string {
  const filtered = (query.events?.length ?? 0) > 0 || query.state !== undefined;
  const failure = report.end?.status === 'failed' ? report.end.failure : undefined;
  if (filtered || failure?.type !== SCOPE_BUSY) return 'no events match\n';
  const busy = ScopeBusyError.fromFailure(report.id, failure.message, failure.details as ScopeBusyDetails | undefined);
  return `${busy.message}: nothing of the loop ran, so it has no events\nfix: ${busy.fix ?? ''}\n`;
}

/** `ll-loop history`. Returns the exit code. */
export async function historyCommand(opts: HistoryOptions): Promise<number> {
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  const query: HistoryQuery = {
    cwd: opts.cwd,
    loop: opts.loop,
    ...(opts.runId === undefined ? {} : { runId: opts.runId }),
    ...(opts.events === undefined ? {} : { events: opts.events }),
    ...(opts.state === undefined ? {} : { state: opts.state }),
  };
  // Made by the checkout's worker when it can (no Temporal SDK, no replay here), else on this
  // command's session; `--write` writes this project's events file, so the command does it.
  const made = opts.write ? await writtenReport(opts, query) : await runsService().history(query);
  if (made.kind === 'runs') {
    if (opts.tail !== undefined) made.entries = made.entries.slice(0, opts.tail);
    if (opts.json) opts.out(`${JSON.stringify(made.entries, null, 2)}\n`);
    else printRuns(opts.loop, made.entries, opts.out);
    return EXIT.ok;
  }
  const report = made.report;
  if (opts.tail !== undefined) report.events = report.events.slice(-opts.tail);
  for (const warning of report.warnings) err(`warning: ${warning}\n`);
  if (opts.json) {
    opts.out(`${JSON.stringify(report, null, 2)}\n`);
    return EXIT.ok;
  }
  const lineage = lineageLines(report);
  if (report.forked_from) opts.out(`${lineage.shift()}\n`);
  for (const event of report.events) opts.out(`${formatEvent(event)}\n`);
  if (report.events.length === 0) opts.out(withoutEvents(report, query));
  for (const line of lineage) opts.out(`${line}\n`);
  if (report.written) opts.out(`wrote ${report.written}\n`);
  return EXIT.ok;
}

/** `ll-loop history` in the command table. */
export const historySpec: CommandSpec = {
  usage:
    "history <name> [run-id] [--event T]… [--state S] [-n|--tail N] [--write] [--json]   past runs, or one run's events",
  flags: {
    tail: { type: 'string', short: 'n' },
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
    const tail = positiveInt(str(ctx, 'tail'), '--tail');
    const known = Object.keys(EVENT_FIELDS);
    for (const name of list(ctx, 'event'))
      if (!known.includes(name))
        throw new UsageError(
          `--event ${name}: no event is named so${didYouMean(name, known)}`,
          `name one of the run's events, e.g. --event action_complete (docs/cli.md lists them)`,
        );
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
      ...(tail === undefined ? {} : { tail }),
    });
  },
};

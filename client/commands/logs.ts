/**
 * `ll-loop logs <run|name> [--state S] [--follow] [--json]`: what each action of a run wrote,
 * stdout and stderr marked, under its state, pass and exit code — sub-loops' actions included,
 * named by their loop. The run is found like `status` finds it (a run id, or a loop name: its open
 * run, else its latest). Output comes from the worker's files on this machine when the result in
 * Temporal keeps only a tail, else from that result (runs/action-logs.ts).
 */
import { formatDuration } from '../../fsm/format.js';
import { bool, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { safeText } from '../reporters/safe-text.js';
import type { ActionLogRecord, StreamCut } from '../follow/action-logs.js';
import { sizeText } from '../../loader/payload-limit.js';
import { personLine } from '../follow/person-events.js';
import { logsThroughWorker } from '../follow/logs-through-worker.js';
import type { LogsQuery, LogsReport } from '../follow/logs-wire.js';

export interface LogsOptions {
  cwd: string;
  target: string;
  /** Only actions of this state (in the run or a sub-loop). */
  state?: string;
  /** A parallel state's item: the output of that item's child run instead (its latest, by index). */
  item?: number;
  /** Keep printing new actions' output until the run ends (line by line on the worker's host). */
  follow: boolean;
  json: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** `check · pass 2 · exit 1 · 1.2s` (with the sub-loop, attempt, timeout or signal when they apply). */
export function headerOf(r: ActionLogRecord): string {
  const where = r.subloop ? `${r.subloop.loop} › ${r.state}` : r.state;
  const parts = [safeText(where), `pass ${r.pass}`];
  if (r.attempt !== undefined) parts.push(`attempt ${r.attempt}`);
  parts.push(`exit ${r.exit_code}`);
  if (r.timed_out) parts.push('timed out');
  if (r.signal) parts.push(`signal ${r.signal}`);
  parts.push(formatDuration(r.duration_ms));
  return `=== ${parts.join(' · ')} ===`;
}

/** One stream's block: its mark, then its text (made safe), or that it was empty. */
function block(mark: string, text: string): string {
  if (text === '') return `--- ${mark}: (empty)\n`;
  return `--- ${mark}:\n${safeText(text)}${text.endsWith('\n') ? '' : '\n'}`;
}

/** Where the output shown came from, when it is not simply the complete result. */
function sourceNote(r: ActionLogRecord): string | undefined {
  if (!r.truncated) return undefined;
  const files = [r.log_file, r.stderr_file]
    .filter((f) => f !== undefined)
    .map((f) => safeText(f))
    .join(', ');
  if (r.files_missing) {
    return `(only the tail kept in Temporal is shown: the output files, which keep each stream's first and last MiB, are ${files || "in the worker's run directory"} on the worker's machine, not found here)`;
  }
  if (r.source === 'file+history')
    return `(stdout and stderr together from ${safeText(r.log_file ?? '')}; stderr's tail from Temporal${r.cut?.stdout ? `;${cutText(r.cut.stdout, 'the file')}; the middle is kept nowhere` : ''})`;
  const cuts = [cutText(r.cut?.stdout, 'stdout'), cutText(r.cut?.stderr, 'stderr')].filter((c) => c !== '');
  return cuts.length === 0
    ? `(from ${files}: the whole output)`
    : `(from ${files}:${cuts.join(';')}; the middle is kept nowhere)`;
}

/** ` stdout printed 100.0 MiB, 98.0 MiB cut from the middle (kept the first and last MiB)`, or ''. */
function cutText(cut: StreamCut | undefined, what: string): string {
  if (cut === undefined) return '';
  return ` ${what} printed ${sizeText(cut.total_bytes)}, ${sizeText(cut.cut_bytes)} cut from the middle (kept the first and last MiB)`;
}

export function printRecord(r: ActionLogRecord, out: (t: string) => void): void {
  let text = `${headerOf(r)}\n`;
  const note = sourceNote(r);
  if (note) text += `${note}\n`;
  text += block(r.source === 'file+history' ? 'stdout+stderr' : 'stdout', r.stdout);
  text += block('stderr', r.stderr);
  out(`${text}\n`);
}

/** `ll-loop logs`. Returns the exit code. */
export async function logsCommand(opts: LogsOptions): Promise<number> {
  if (opts.follow) return (await import('./logs-follow.js')).followLogs(opts);
  const query: LogsQuery = {
    cwd: opts.cwd,
    target: opts.target,
    ...(opts.state === undefined ? {} : { state: opts.state }),
    ...(opts.item === undefined ? {} : { item: opts.item }),
  };
  // Made by the checkout's worker when it can (no Temporal SDK, no replay here), else on this
  // command's session.
  const report =
    (await logsThroughWorker(query)) ??
    (await (async () => {
      const [{ withSession }, { logsReportOf }] = await Promise.all([
        import('../temporal/session.js'),
        import('../follow/logs-report.js'),
      ]);
      return withSession(opts.cwd, (session) => logsReportOf(session, query));
    })());
  printReport(report, opts);
  return EXIT.ok;
}

/** The report as `logs` prints it: every action and a person's part in time order, or JSON. */
function printReport(report: LogsReport, opts: LogsOptions): void {
  for (const warning of report.warnings) opts.err(`warning: ${warning}\n`);
  if (opts.json) {
    const { id, loop, status, actions, people } = report;
    opts.out(`${JSON.stringify({ id, loop, status, actions, people }, null, 2)}\n`);
    return;
  }
  const shown = [
    ...report.actions.map((r) => ({ ts: r.ts, print: () => printRecord(r, opts.out) })),
    ...report.people.map((p) => ({ ts: p.ts, print: () => opts.out(personLine(p)) })),
  ];
  // In time order; an action and a person's event at the same instant keep that order.
  shown.sort((a, b) => a.ts.localeCompare(b.ts));
  for (const s of shown) s.print();
  if (report.actions.length === 0 && report.people.length === 0) {
    opts.out(
      opts.state !== undefined
        ? `no action of state ${safeText(opts.state)} in ${report.id}\n`
        : report.open
          ? `no action of ${report.id} has finished yet\n`
          : // An action the run's end cut short (a stop) left no result, and no output is kept of it.
            `no action of ${report.id} finished before the run ended (${report.status}); an action its end cut short keeps no output\n`,
    );
  }
  if (report.open)
    opts.err(
      `note: ${report.id} is still running; ll-loop logs ${report.id} --follow prints its actions as they finish\n`,
    );
}

/** `ll-loop logs` in the command table. */
export const logsSpec: CommandSpec = {
  usage: 'logs <name|run-id> [--state S] [--item N] [--follow] [--json]   what each action printed',
  flags: {
    state: { type: 'string' },
    item: { type: 'string' },
    follow: { type: 'boolean', short: 'f' },
    json: { type: 'boolean' },
  },
  run(ctx) {
    const [target, ...rest] = ctx.positionals;
    if (target === undefined) throw new UsageError('logs needs a run id or a loop name', 'll-loop logs <name|run-id>');
    if (rest.length)
      throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, 'll-loop logs <name|run-id> [--state S]');
    const state = str(ctx, 'state');
    const itemText = str(ctx, 'item');
    const item = itemText === undefined ? undefined : Number(itemText);
    if (item !== undefined && !(Number.isInteger(item) && item >= 0))
      throw new UsageError(
        `--item takes an item's index (0, 1, …), not "${itemText}"`,
        'll-loop logs <run-id> --item 3 (ll-loop status <run-id> lists the running items)',
      );
    return logsCommand({
      cwd: ctx.cwd,
      target,
      follow: bool(ctx, 'follow'),
      json: bool(ctx, 'json'),
      out: ctx.out,
      err: ctx.err,
      ...(state === undefined ? {} : { state }),
      ...(item === undefined ? {} : { item }),
    });
  },
};

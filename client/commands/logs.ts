/**
 * `ll-loop logs <run|name> [--state S] [--follow] [--json]`: what each action of a run wrote,
 * stdout and stderr marked, under its state, pass and exit code — sub-loops' actions included,
 * named by their loop. The run is found like `status` finds it (a run id, or a loop name: its open
 * run, else its latest). Output comes from the worker's files on this machine when the result in
 * Temporal keeps only a tail, else from that result (runs/action-logs.ts).
 */
import { bool, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { safeText } from '../../reporters/safe-text.js';
import { personLine } from '../../runs/follow/person-events.js';
import type { LogsQuery, LogsReport } from '../../runs/follow/logs-report.js';
import { runsService } from '../../runs/service/runs-service.js';
import { printRecord, type LogsOptions } from './logs-print.js';

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
  const report = await runsService().logs(query);
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
        ? `no action of state ${safeText(opts.state)} in ${report.id} ${report.open ? 'has finished yet' : `finished before the run ended (${report.status}); an action its end cut short keeps no output`}\n`
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

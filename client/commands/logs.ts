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
import { actionLogCollector, type ActionLogRecord } from '../follow/action-logs.js';
import { followEvents } from '../follow/follow-events.js';
import type { Client, Connection } from '@temporalio/client';
import { queryStatus, resolveRun } from '../runs/run-target.js';
import { startInputOf } from '../resume/resumable.js';
import { projectScope } from '../runs/find-runs.js';
import { withSession } from '../temporal/session.js';
import { streamedLines } from './follow-lines.js';
import { personLine, personRecord, type PersonRecord } from '../follow/person-events.js';

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
    return `(only the tail kept in Temporal is shown: the full log is in ${files || "the worker's run directory"} on the worker's machine, not found here)`;
  }
  if (r.source === 'file+history')
    return `(stdout and stderr together from ${safeText(r.log_file ?? '')}; stderr's tail from Temporal)`;
  return `(from ${files}: each keeps its stream's first and last MiB)`;
}

function printRecord(r: ActionLogRecord, out: (t: string) => void): void {
  let text = `${headerOf(r)}\n`;
  const note = sourceNote(r);
  if (note) text += `${note}\n`;
  text += block(r.source === 'file+history' ? 'stdout+stderr' : 'stdout', r.stdout);
  text += block('stderr', r.stderr);
  out(`${text}\n`);
}

/** `ll-loop logs`. Returns the exit code. */
export async function logsCommand(opts: LogsOptions): Promise<number> {
  return withSession(opts.cwd, async ({ client, connection }) => {
    const parent = await resolveRun(client, opts.target, { latest: true, project: projectScope(opts.cwd) });
    const run =
      opts.item === undefined
        ? parent
        : await resolveRun(client, await itemRunId(client, connection, parent.id, opts.item), { latest: true });
    let records: ActionLogRecord[] = [];
    // Following on the worker's host, output prints line by line as it is written (follow-lines.ts).
    const live = opts.follow && !opts.json ? streamedLines(run.id, run.cwd ?? opts.cwd, opts) : undefined;
    const onAction = (r: ActionLogRecord): void => {
      if (opts.state !== undefined && r.state !== opts.state) return;
      records.push(r);
      // Following, each action prints as it finishes (JSON Lines with --json).
      if (!opts.follow) return;
      if (opts.json) opts.out(`${JSON.stringify(r)}\n`);
      else if (live?.wasStreamed(r.workflow_id)) opts.out(`${headerOf(r)} (its output is above, as written)\n\n`);
      else printRecord(r, opts.out);
    };
    const collect = actionLogCollector(run.id, onAction);
    // A person's part (waits, answers, deadlines, pauses, steers) goes between the actions.
    const people: PersonRecord[] = [];
    const onPerson = (event: Parameters<typeof personRecord>[0]): void => {
      const p = personRecord(event);
      if (!p || (opts.state !== undefined && p.state !== opts.state)) return;
      people.push(p);
      if (!opts.follow) return;
      opts.out(opts.json ? `${JSON.stringify(p)}\n` : personLine(p));
    };
    const followed = await followEvents(client, run.id, {
      follow: opts.follow,
      children: true,
      actionOutput: true,
      onEvent: (event) => {
        live?.onEvent(event);
        collect(event);
        onPerson(event);
      },
    }).finally(() => live?.close());
    for (const warning of followed.warnings) opts.err(`warning: ${warning}\n`);
    if (!opts.follow) {
      // A sub-loop's history is read beside its parent's, so its actions may arrive first: order by time.
      records = records
        .map((r, i) => ({ r, i }))
        .sort((a, b) => a.r.ts.localeCompare(b.r.ts) || a.i - b.i)
        .map(({ r }) => r);
      if (opts.json) {
        const report = { id: run.id, loop: run.loop, status: run.status.toLowerCase(), actions: records, people };
        opts.out(`${JSON.stringify(report, null, 2)}\n`);
        return EXIT.ok;
      }
      const shown = [
        ...records.map((r) => ({ ts: r.ts, print: () => printRecord(r, opts.out) })),
        ...people.map((p) => ({ ts: p.ts, print: () => opts.out(personLine(p)) })),
      ];
      // In time order; an action and a person's event at the same instant keep that order.
      shown.sort((a, b) => a.ts.localeCompare(b.ts));
      for (const s of shown) s.print();
    }
    if (opts.json) return EXIT.ok;
    if (records.length === 0 && people.length === 0) {
      opts.out(
        opts.state === undefined
          ? `no action of ${run.id} has finished yet\n`
          : `no action of state ${safeText(opts.state)} in ${run.id}\n`,
      );
    }
    if (!opts.follow && followed.end === undefined)
      opts.err(`note: ${run.id} is still running; ll-loop logs ${run.id} --follow prints its actions as they finish\n`);
    return EXIT.ok;
  });
}

/**
 * The child run of item `index` of a parallel state of run `id`: a running item's from the run's
 * status, else the last that ended with that index in its events (a later pass's over an earlier).
 */
async function itemRunId(client: Client, connection: Connection, id: string, index: number): Promise<string> {
  const live = await queryStatus(connection, client.workflow.getHandle(id)).catch(() => null);
  const running = live?.fanout?.running.find((r) => r.index === index);
  if (running) return running.run_id;
  let ended: string | undefined;
  let items = 0;
  await followEvents(client, id, {
    follow: false,
    onEvent: (event) => {
      if (event.event === 'fanout_start') items = Math.max(items, Number(event.count));
      if (event.event === 'item_done' && event.index === index && typeof event.run_id === 'string')
        ended = event.run_id;
    },
  });
  if (ended !== undefined) return ended;
  // An item a resumed run carried from the run it resumed ended there, under that run's id.
  const carried = (await startInputOf(client, id))?.continueFrom?.fanout?.results.find((r) => r.index === index);
  if (carried?.run_id !== undefined) return carried.run_id;
  throw new UsageError(
    items === 0
      ? `run ${id} has no parallel state that ran items`
      : index >= items
        ? `run ${id}'s fan-out has items 0 to ${items - 1}, not ${index}`
        : `item ${index} of run ${id} has not started yet`,
    items === 0
      ? `ll-loop logs ${id} shows its own actions`
      : `ll-loop status ${id} shows which items run and which ended`,
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

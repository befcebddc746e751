/**
 * `ll-loop status <name|run-id> [--follow] [--json]`: where a run is, answered by the workflow
 * itself (its `status` query) while it is open, or its result once it has closed.
 * `--follow` (and `ll-loop monitor`) streams its progress instead (client/commands/follow.ts).
 * The report (runs/find/status-report.ts) is made by the checkout's worker when it is up
 * (runs/service/), so the command then loads no Temporal SDK.
 */
import { closedWithoutResult } from '../../runs/follow/closed-without-result.js';
import { fanoutLines } from '../../reporters/fanout-line.js';
import { formatDuration, oneLine } from '../../fsm/format.js';
import { spendLine } from '../../fsm/run/budget.js';
import type { LockStatus, LoopStatus } from '../../workflows/definitions.js';
import { bool, JSON_FLAG, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { createHumanReporter } from '../../reporters/human.js';
import { loopOutcome, outcomeOfStatus } from '../../reporters/outcome-words.js';
import { colourWanted, createStyle } from '../../reporters/style.js';
import { localTime } from '../../reporters/table.js';
import { safeText } from '../../reporters/safe-text.js';
import { describePhase, QUERY_TIMEOUT_MS } from '../../runs/find/status-text.js';
import type { StatusReport } from '../../runs/find/status-report.js';
import { runsService } from '../../runs/service/runs-service.js';

export type { StatusReport } from '../../runs/find/status-report.js';

/** Options of {@link statusCommand}; `out` receives stdout, `err` stderr. */
export interface StatusOptions {
  cwd: string;
  target: string;
  json: boolean;
  follow?: boolean;
  out: (text: string) => void;
  err?: (text: string) => void;
  /** ANSI colour when following (see {@link FollowOptions}). */
  colour?: boolean;
}

function printOpen(report: StatusReport, out: (t: string) => void): void {
  const live = report.live;
  out(`run ${report.id} · running${report.url ? ` · ${report.url}` : ''}\n`);
  if (!live && report.busy && report.in_action) {
    // The run cannot answer while its quick action holds its workflow task; its worker's state file can.
    const a = report.in_action;
    const rows: Array<[string, string]> = [
      ['loop', report.loop],
      ['state', `${a.state} (${describePhase(a.phase)})`],
      ['iteration', `${a.iteration} · ${a.steps} step${a.steps === 1 ? '' : 's'}`],
      ['captured', a.captured.join(', ') || '-'],
    ];
    for (const [k, v] of rows) out(`${`${k}:`.padEnd(14)}${v}\n`);
    out(
      `as its worker's state file says${a.updated_at ? ` (${localTime(new Date(a.updated_at))})` : ''}: a quick action runs, and the run answers in full when it ends (up to its timeout)\n`,
    );
    return;
  }
  if (!live && report.busy) {
    out(
      `no answer within ${QUERY_TIMEOUT_MS / 1000}s, but a worker holds its workflow task (a quick local action runs, up to its timeout): try again shortly\n`,
    );
    return;
  }
  if (!live) {
    out(
      `no worker answered within ${QUERY_TIMEOUT_MS / 1000}s: the run is open in Temporal but nothing executes it (the process that ran it is gone)\n` +
        `fix: any ll-loop command in its checkout starts the checkout's worker (ll-loop resume ${report.id} for runs of ll-loop 0.2.0); ll-loop stop ${report.id} --force ends it\n`,
    );
    return;
  }
  if (live.lock?.state === 'waiting') {
    // Nothing has run yet: the run starts once it holds its scopes.
    out(
      `${'loop:'.padEnd(14)}${live.loop}\n${'scope lock:'.padEnd(14)}${describeLock(live.lock)}\nnothing has run yet: it starts in state ${live.state} once it holds its scopes\n`,
    );
    return;
  }
  const lines: Array<[string, string]> = [
    ['loop', live.loop],
    [
      'state',
      live.human
        ? `${live.state} (${waitingForYou(live.human)})`
        : `${live.state} (${describePhase(live.phase)}${live.paused && !live.paused.holding ? '; pausing' : ''})`,
    ],
    ['iteration', `${live.iteration}/${live.max_iterations} · ${live.steps} step${live.steps === 1 ? '' : 's'}`],
    ['last verdict', live.last_verdict ?? '-'],
    ['elapsed', `${formatDuration(live.elapsed_ms)} (started ${localTime(new Date(live.started_at))})`],
    ['captured', live.captured.join(', ') || '-'],
    ...(live.spent || live.budget ? [['spent', spendLine(live.spent, live.budget) ?? '$0'] as [string, string]] : []),
    ...(live.lock ? [['scope lock', describeLock(live.lock)] as [string, string]] : []),
    ...(live.host ? [['host', live.host] as [string, string]] : []),
    ...(live.waiting_for ? [['waiting for', live.waiting_for] as [string, string]] : []),
    ...(live.rate_limited ? [['rate limited', describeRateLimit(live.rate_limited)] as [string, string]] : []),
    ...(live.paused
      ? [
          [
            'paused',
            `by ${safeText(live.paused.by)} since ${localTime(new Date(live.paused.since))}, ${pausedUntil(live.paused, live.phase)}\n${''.padEnd(14)}let it go on: ${live.paused.unpause}`,
          ] as [string, string],
        ]
      : []),
    ...(live.steer
      ? [
          [
            'steered',
            `to ${live.steer.to} by ${safeText(live.steer.by)}${live.steer.note ? ` (${safeText(oneLine(live.steer.note, 120))})` : ''}: its next transition goes there`,
          ] as [string, string],
        ]
      : []),
    ...(live.human
      ? [
          ['question', indentLines(safeText(live.human.prompt))] as [string, string],
          ['answer', live.human.answer] as [string, string],
        ]
      : []),
    ...(live.fanout ? [['fan-out', fanoutLines(live.fanout).join(`\n${''.padEnd(14)}`)] as [string, string]] : []),
    ...(live.handoff
      ? [
          [
            'handed off',
            `${safeText(oneLine(live.handoff.payload, 160))} (since ${localTime(new Date(live.handoff.since))})\n${''.padEnd(14)}continue it: ${live.handoff.resume}`,
          ] as [string, string],
        ]
      : []),
  ];
  for (const [k, v] of lines) out(`${`${k}:`.padEnd(14)}${v}\n`);
}

/** A run waiting for a person: since when and until when. */
function waitingForYou(h: NonNullable<LoopStatus['human']>): string {
  const deadline = h.deadline === undefined ? '' : ` (deadline ${localTime(new Date(h.deadline))})`;
  return `waiting for you since ${localTime(new Date(h.since))}${deadline}`;
}

/** Text of several lines under a status key: the next lines indented to the values' column. */
function indentLines(text: string): string {
  return text.split('\n').join(`\n${''.padEnd(14)}`);
}

/** A pause for a rate limit, for people: when the call is made again, and what was said. */
function describeRateLimit(r: NonNullable<LoopStatus['rate_limited']>): string {
  const resumes = new Date(r.resumes_at);
  const left = formatDuration(Math.max(0, resumes.getTime() - Date.now()));
  const what = r.source === 'llm' ? 'the LLM evaluation' : 'the action';
  const count = r.pauses > 1 ? `, pause ${r.pauses} since ${localTime(new Date(r.since))}` : '';
  return `${r.kind.replace('_', ' ')}: ${safeText(oneLine(r.message, 160))}\n${''.padEnd(14)}runs ${what} again at ${localTime(resumes)} (in ${left}${count}); ll-loop stop ends the run now`;
}

/** A run's scope lock for people: what it holds, or what it waits for and behind whom. */
function describeLock(lock: LockStatus): string {
  const scopes = lock.scopes.join(', ');
  const since = formatDuration(Math.max(0, Date.now() - lock.since_ms));
  if (lock.state === 'held') return `holds ${scopes} (for ${since})`;
  return `waiting for ${scopes}${lock.holder ? ` behind ${lock.holder}` : ''} (for ${since}; ll-loop queue list shows the queue)`;
}

/**
 * When a paused run holds: it does already, or once what it is doing ends — an action, a question
 * waiting for its answer, a handoff waiting for `resume` (as `pause` said it: run-control.ts).
 */
export function pausedUntil(paused: NonNullable<LoopStatus['paused']>, phase: string): string {
  if (paused.holding) return `holding before ${paused.next ?? '?'}`;
  if (phase === 'human') return 'holds once its question is answered';
  if (phase === 'handoff') return 'holds once ll-loop resume continues it (a handoff)';
  return 'holds once its action ends';
}

/**
 * The first line of a closed run's status: its outcome in the outcome words (the list's and the
 * web view's, reporters/outcome-words.ts), not Temporal's status (`--json` has that).
 */
export function closedHeadline(report: StatusReport): string {
  const outcome = report.result ? loopOutcome(report.result) : outcomeOfStatus(report.status);
  const closed = report.closed_at ? `, closed ${localTime(new Date(report.closed_at))}` : '';
  return `run ${report.id} · ${outcome} (started ${localTime(new Date(report.started_at))}${closed})${report.url ? ` · ${report.url}` : ''}`;
}

function printClosed(report: StatusReport, out: (t: string) => void): void {
  out(`${closedHeadline(report)}\n`);
  if (report.result) createHumanReporter(out, createStyle(false), 0).onResult(report.result, { instanceId: report.id });
  else if (report.status === 'completed') out('its result could not be read\n');
  else out(`${closedWithoutResult(report.id, report.status, report.failure)}\n`);
}

/** `ll-loop status`. Returns the exit code (0 whenever the status could be read). */
export async function statusCommand(opts: StatusOptions): Promise<number> {
  if (opts.follow) return (await import('./follow.js')).followCommand(opts);
  // Made by the checkout's worker when it can (no Temporal SDK here), else on this command's session.
  const report = await runsService().status(opts.cwd, opts.target);
  if (opts.json) opts.out(`${JSON.stringify(report, null, 2)}\n`);
  else if (report.open) printOpen(report, opts.out);
  else printClosed(report, opts.out);
  return EXIT.ok;
}

function target(positionals: string[], command: string): string {
  const [first, ...rest] = positionals;
  if (first === undefined)
    throw new UsageError(`${command} needs a loop name or run id`, `ll-loop ${command} <name|run-id>`);
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, `ll-loop ${command} <name|run-id>`);
  return first;
}

/** `ll-loop status` in the command table. */
export const statusSpec: CommandSpec = {
  usage: 'status <name|run-id> [--follow] [--json]     where a run is (answered by the run itself)',
  flags: { ...JSON_FLAG, follow: { type: 'boolean', short: 'f' } },
  run: (ctx) =>
    statusCommand({
      cwd: ctx.cwd,
      target: target(ctx.positionals, 'status'),
      json: bool(ctx, 'json'),
      follow: bool(ctx, 'follow'),
      out: ctx.out,
      err: ctx.err,
      colour: colourWanted(ctx.terminal),
    }),
};

/** `ll-loop monitor`: an alias of `status --follow`. */
export const monitorSpec: CommandSpec = {
  usage: 'monitor <name|run-id> [--json]               same as status --follow',
  flags: JSON_FLAG,
  run: (ctx) =>
    statusCommand({
      cwd: ctx.cwd,
      target: target(ctx.positionals, 'monitor'),
      json: bool(ctx, 'json'),
      follow: true,
      out: ctx.out,
      err: ctx.err,
      colour: colourWanted(ctx.terminal),
    }),
};

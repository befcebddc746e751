/**
 * `ll-loop schedule`: Temporal Schedules that run a loop on a timer (runs/schedules/schedules.ts).
 *
 *   schedule <name|path> --every D | --cron "EXPR" [--context K=V]… [--context-file K=PATH]… [--task-queue Q] [--pause-on-failure] [--json]
 *   schedule list [--json]
 *   schedule pause|unpause|trigger|delete <name> [--json]
 *
 * Scheduled runs execute on a shared task queue (`ll-loop` unless `--task-queue`): they need an
 * `ll-loop worker` polling it.
 */
import { bool, str, type CommandContext, type CommandSpec } from '../command-table.js';
import { CONTEXT_FLAGS, contextPairs } from './context-flags.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { loadLoop, parseContextArgs } from '../../loader/load.js';
import { commandLineDataKeys } from '../../fsm/definition/parameters.js';
import {
  backfillLoopSchedule,
  createLoopSchedule,
  overlapOf,
  scheduledRunsWait,
  deleteLoopSchedule,
  describeWhen,
  LoopScheduleNotFoundError,
  listLoopSchedules,
  parseEvery,
  scheduleIdFor,
  setLoopSchedulePaused,
  triggerLoopSchedule,
  type LoopScheduleInfo,
  type ScheduleWhen,
} from '../../runs/schedules/schedules.js';
import { withSession } from '../../temporal/session.js';
import { lockRequestFor } from '../../runs/scopes/scope-lock.js';
import { checkoutAt, type WorkerRecord } from '../../host/checkout.js';
import { checkoutRootOf, ensureCheckoutWorker } from '../../runs/workers/checkout-worker.js';
import { DEFAULT_SHARED_QUEUE, runTuning, searchAttributesAvailable } from '../../runs/start/start-run.js';
import { printDiagnostics } from '../../reporters/diagnostics.js';
import { serverKey } from '../../host/run-env.js';
import { removeScheduleEnv, scheduleEnvFile, writeScheduleEnv } from '../../host/schedule-env.js';
import { readFileSync, writeFileSync } from 'node:fs';

const ACTIONS = ['list', 'pause', 'unpause', 'trigger', 'delete', 'backfill'] as const;
type Action = (typeof ACTIONS)[number];

/** Flags only creating a schedule accepts. */
const CREATE_FLAGS = [
  'every',
  'cron',
  'context',
  'context-file',
  'context-allow-unknown',
  'task-queue',
  'pause-on-failure',
  'no-lock',
] as const;
const BACKFILL_FLAGS = ['start', 'end'] as const;

const USAGE =
  'schedule <name|path> --every D | --cron "EXPR" [--context K=V]… [--context-file K=PATH]… [--context-allow-unknown] [--overlap skip|buffer-one|buffer-all|cancel-other|allow-all] [--no-lock] [--task-queue Q] [--pause-on-failure] [--json]   run a loop on a Temporal Schedule\n' +
  '  ll-loop schedule list | pause <name> | unpause <name> | trigger <name> | delete <name> [--json]\n' +
  '  ll-loop schedule backfill <name> --start TIME --end TIME [--overlap P]   start the runs a period missed';

function json(ctx: CommandContext, value: unknown): void {
  ctx.out(`${JSON.stringify(value, null, 2)}\n`);
}

function whenOf(ctx: CommandContext): ScheduleWhen {
  const every = str(ctx, 'every');
  const cron = str(ctx, 'cron');
  if ((every === undefined) === (cron === undefined)) {
    throw new UsageError(
      'schedule needs exactly one of --every and --cron',
      'e.g. ll-loop schedule <name> --every 1h, or --cron "0 9 * * 1-5"',
    );
  }
  if (every !== undefined) return { every: every.trim(), everyMs: parseEvery(every) };
  if (cron!.trim() === '') throw new UsageError('--cron needs an expression', 'e.g. --cron "0 * * * *"');
  return { cron: cron!.trim() };
}

async function create(ctx: CommandContext, target: string): Promise<number> {
  const when = whenOf(ctx);
  // By default the checkout's own worker runs the scheduled runs (`worker install` keeps it up).
  const named = str(ctx, 'task-queue');
  if (named !== undefined && named.trim() === '')
    throw new UsageError('--task-queue needs a task queue name', "omit it to use this checkout's worker");
  const taskQueue = named ?? checkoutAt(checkoutRootOf(ctx.cwd)).queue;
  const context = parseContextArgs(contextPairs(ctx));
  const loaded = loadLoop(target, ctx.cwd, {
    context,
    requireParameters: true,
    refuseUnusedContext: !bool(ctx, 'context-allow-unknown'),
  });
  if (!loaded.definition) {
    printDiagnostics(loaded.diagnostics, bool(ctx, 'json'), ctx.out, ctx.err);
    throw new CliError(
      `${loaded.file} is not a valid loop; no schedule was created`,
      'fix the errors above, then run again',
      EXIT.usage,
    );
  }
  const definition = loaded.definition;
  const overlap = overlapOf(str(ctx, 'overlap'));
  let worker: WorkerRecord | undefined;
  const info = await withSession(ctx.cwd, async ({ client, connection, endpoint }) => {
    if (named === undefined) worker = await ensureCheckoutWorker(ctx.cwd, endpoint.address);
    // The scheduled runs see this command's environment (host/schedule-env.ts), left before the
    // schedule exists so that its first run finds it; put back as it was if none is created.
    const restore = leaveScheduleEnv(scheduleIdFor(definition.name), serverKey(endpoint.address, endpoint.namespace));
    return createLoopSchedule({
      client,
      definition,
      file: loaded.file,
      cwd: ctx.cwd,
      when,
      taskQueue,
      searchAttributes: await searchAttributesAvailable(endpoint, connection),
      pauseOnFailure: bool(ctx, 'pause-on-failure'),
      tuning: runTuning(),
      overlap,
      dataContext: commandLineDataKeys(definition, context),
      ...(bool(ctx, 'no-lock')
        ? {}
        : {
            lock: lockRequestFor(definition, checkoutAt(checkoutRootOf(ctx.cwd)), {
              wait: scheduledRunsWait(overlap, bool(ctx, 'pause-on-failure')),
              ...(named === undefined ? {} : { taskQueue: named }),
            }),
          }),
    }).catch((err: unknown) => {
      restore();
      throw err;
    });
  });
  if (bool(ctx, 'json')) json(ctx, info);
  else {
    ctx.out(
      `created schedule ${info.id}: ${definition.name} ${describeWhen(when)}${info.pauseOnFailure ? ', pauses after a failed run' : ''}\n`,
    );
    if (info.next[0]) ctx.out(`next run: ${info.next[0]}\n`);
    if (worker)
      ctx.out(
        `runs execute on this checkout's worker (pid ${worker.pid}); to keep it running across reboots: ll-loop worker install\n`,
      );
    else
      ctx.out(
        `runs execute on task queue ${taskQueue}: keep a worker running (ll-loop worker${taskQueue === DEFAULT_SHARED_QUEUE ? ' --task-queue ll-loop' : ` --task-queue ${taskQueue}`})\n`,
      );
  }
  return EXIT.ok;
}

function printList(ctx: CommandContext, schedules: LoopScheduleInfo[]): void {
  if (schedules.length === 0) {
    ctx.out('no schedules (create one with ll-loop schedule <name> --every 1h)\n');
    return;
  }
  const rows = [['SCHEDULE', 'LOOP', 'WHEN', 'STATE', 'NEXT RUN', 'LAST RUN']];
  for (const s of schedules) {
    const state = s.paused ? `paused${s.note ? ` (${s.note})` : ''}` : 'active';
    rows.push([s.id, s.loop, s.when, state, s.paused ? '-' : (s.next[0] ?? '-'), s.recent.at(-1) ?? '-']);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows)
    ctx.out(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}\n`);
}

/** `--start`/`--end`: an ISO 8601 time (local time when no zone is given). */
function timeFlag(ctx: CommandContext, name: 'start' | 'end'): Date {
  const raw = str(ctx, name);
  if (raw === undefined)
    throw new UsageError(
      `schedule backfill needs --${name}`,
      'e.g. ll-loop schedule backfill <name> --start 2026-11-20T00:00 --end 2026-11-21T00:00',
    );
  const date = new Date(raw);
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`--${name} ${raw} is not a time`, 'use ISO 8601, e.g. 2026-11-20T09:00 or 2026-11-20T09:00Z');
  return date;
}

/**
 * Leaves this command's environment for the runs of `scheduleId`; returns how to put back the
 * file that was there (another schedule of that id keeps its own when this one is refused).
 */
function leaveScheduleEnv(scheduleId: string, server: string): () => void {
  const path = scheduleEnvFile(scheduleId, server);
  let before: string | undefined;
  try {
    before = readFileSync(path, 'utf8');
  } catch {
    before = undefined;
  }
  writeScheduleEnv(scheduleId, server, process.env);
  return () => {
    if (before === undefined) removeScheduleEnv(scheduleId, server);
    else writeFileSync(path, before, { mode: 0o600 });
  };
}

async function act(ctx: CommandContext, action: Exclude<Action, 'list'>, loop: string): Promise<number> {
  const asJson = bool(ctx, 'json');
  const scheduleId = scheduleIdFor(loop);
  await withSession(ctx.cwd, async ({ client, endpoint }) => {
    switch (action) {
      case 'pause':
      case 'unpause': {
        await setLoopSchedulePaused(client, loop, action === 'pause');
        if (asJson) json(ctx, { schedule: scheduleId, paused: action === 'pause' });
        else ctx.out(`${action === 'pause' ? 'paused' : 'unpaused'} ${scheduleId}\n`);
        return;
      }
      case 'trigger': {
        const workflowId = await triggerLoopSchedule(client, loop);
        if (asJson) json(ctx, { schedule: scheduleId, triggered: true, ...(workflowId ? { run: workflowId } : {}) });
        else if (workflowId)
          ctx.out(`triggered ${scheduleId}: run ${workflowId} (follow it with ll-loop status ${workflowId})\n`);
        else ctx.out(`triggered ${scheduleId}; no new run started yet (skipped while a run is still going)\n`);
        return;
      }
      case 'backfill': {
        const start = timeFlag(ctx, 'start');
        const end = timeFlag(ctx, 'end');
        if (end <= start)
          throw new UsageError('--end must be after --start', 'e.g. --start 2026-11-20T00:00 --end 2026-11-21T00:00');
        const overlap = str(ctx, 'overlap');
        await backfillLoopSchedule(client, loop, start, end, overlap === undefined ? undefined : overlapOf(overlap));
        if (asJson)
          json(ctx, { schedule: scheduleId, backfill: { start: start.toISOString(), end: end.toISOString() } });
        else
          ctx.out(
            `backfilling ${scheduleId} from ${start.toISOString()} to ${end.toISOString()}: the runs that period would have had start now (ll-loop list --running)\n`,
          );
        return;
      }
      case 'delete': {
        const server = serverKey(endpoint.address, endpoint.namespace);
        await deleteLoopSchedule(client, loop).catch((err: unknown) => {
          // A schedule already gone has no runs to come: its environment file goes all the same.
          if (err instanceof LoopScheduleNotFoundError) removeScheduleEnv(scheduleId, server);
          throw err;
        });
        removeScheduleEnv(scheduleId, server);
        if (asJson) json(ctx, { schedule: scheduleId, deleted: true });
        else ctx.out(`deleted ${scheduleId} (runs it started are not affected)\n`);
        return;
      }
    }
  });
  return EXIT.ok;
}

export const scheduleSpec: CommandSpec = {
  usage: USAGE,
  flags: {
    every: { type: 'string' },
    cron: { type: 'string' },
    ...CONTEXT_FLAGS,
    'context-allow-unknown': { type: 'boolean' },
    'task-queue': { type: 'string' },
    'pause-on-failure': { type: 'boolean' },
    'no-lock': { type: 'boolean' },
    overlap: { type: 'string' },
    start: { type: 'string' },
    end: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(ctx) {
    const [first, second, ...extra] = ctx.positionals;
    if (first === undefined)
      throw new UsageError(
        'schedule needs a loop name or an action',
        'll-loop schedule <name> --every 1h, or ll-loop schedule list',
      );
    const action = (ACTIONS as readonly string[]).includes(first)
      ? (first as Action)
      : first === 'create'
        ? 'create'
        : undefined;
    if (action === undefined || action === 'create') {
      const target = action === 'create' ? second : first;
      const rest = action === 'create' ? extra : [second, ...extra].filter((x): x is string => x !== undefined);
      if (target === undefined)
        throw new UsageError('schedule create needs a loop name or path', 'll-loop schedule <name> --every 1h');
      if (rest.length)
        throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, 'quote a cron expression: --cron "0 * * * *"');
      return create(ctx, target);
    }
    const misplaced = [
      ...CREATE_FLAGS,
      ...(action === 'backfill' ? [] : BACKFILL_FLAGS),
      ...(action === 'backfill' ? [] : (['overlap'] as const)),
    ].filter((f) => ctx.values[f] !== undefined);
    if (misplaced.length)
      throw new UsageError(
        `schedule ${action} does not take --${misplaced.join(', --')}`,
        `ll-loop schedule ${action}${action === 'list' ? '' : ' <name>'} [--json]`,
      );
    if (action === 'list') {
      if (second !== undefined)
        throw new UsageError(`unexpected arguments: ${[second, ...extra].join(' ')}`, 'll-loop schedule list [--json]');
      const schedules = await withSession(ctx.cwd, ({ client }) => listLoopSchedules(client));
      if (bool(ctx, 'json')) json(ctx, schedules);
      else printList(ctx, schedules);
      return EXIT.ok;
    }
    if (second === undefined)
      throw new UsageError(
        `schedule ${action} needs the loop's name`,
        `ll-loop schedule ${action} <name> (see ll-loop schedule list)`,
      );
    if (extra.length)
      throw new UsageError(`unexpected arguments: ${extra.join(' ')}`, `ll-loop schedule ${action} <name>`);
    return act(ctx, action, second);
  },
};

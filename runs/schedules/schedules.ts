/**
 * Temporal Schedules that run loops (`ll-loop schedule`): one schedule per loop, id
 * `ll-loop-<loop>`, whose action starts `loopWorkflow` with the loop's validated, resolved
 * definition on a shared task queue (the one `ll-loop worker` polls). Overlap policy SKIP: a
 * cycle is skipped while the previous run is still going.
 */
import { loopVersion } from '../../loader/loop-version.js';
import { buildInfo } from '../../host/build-info.js';
import { checkoutKey } from '../../host/checkout.js';
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleDescription,
  type ScheduleExecutionResult,
  type ScheduleSummary,
} from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import type { LoopDefinition } from '../../fsm/schema.js';
import { LOOP_WORKFLOW_TYPE, type LoopWorkflowInput, type ScopeLockRequest } from '../../workflows/definitions.js';
import { CURRENT_RUN_RULES } from '../../workflows/run-rules.js';
import { recordedRunOptions, type RunTuning } from '../../workflows/run-options.js';
import type { loopWorkflow } from '../../workflows/loop-workflow.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { detailsDescription } from '../start/start-limits.js';
import { parseDuration } from './durations.js';
// Every ll-loop schedule id starts with this; the rest is the loop's name. Its runs' environment
// file is found from their ids (host/schedule-env.ts), so the prefix is named there.
import { SCHEDULE_ID_PREFIX } from '../../host/schedule-env.js';

export { parseDuration };

/** When a schedule fires: a fixed interval or a cron expression. */
export type ScheduleWhen = { every: string; everyMs: number } | { cron: string };

/** No schedule has this id. */
export class LoopScheduleNotFoundError extends CliError {
  override readonly name = 'LoopScheduleNotFoundError';
  constructor(readonly scheduleId: string) {
    super(`no schedule ${scheduleId}`, 'see the schedules with ll-loop schedule list', EXIT.usage);
  }
}

/** A schedule with this id exists already. */
class LoopScheduleExistsError extends CliError {
  override readonly name = 'LoopScheduleExistsError';
  constructor(
    readonly scheduleId: string,
    loop: string,
  ) {
    super(
      `schedule ${scheduleId} already exists`,
      `delete it first (ll-loop schedule delete ${loop}), then create it again`,
      EXIT.usage,
    );
  }
}

/** `ll-loop-<loop>`, with characters Temporal ids should not hold replaced by `-`. */
export function scheduleIdFor(loop: string): string {
  return `${SCHEDULE_ID_PREFIX}${loop.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
}

/** `--every` → milliseconds (see {@link parseDuration}). */
export function parseEvery(text: string): number {
  return parseDuration(text, '--every');
}

/** How a schedule's timing is shown (kept in its memo: Temporal stores cron as calendars). */
export function describeWhen(when: ScheduleWhen): string {
  return 'cron' in when ? `cron "${when.cron}"` : `every ${when.every}`;
}

export interface CreateScheduleRequest {
  client: Client;
  definition: LoopDefinition;
  file: string;
  cwd: string;
  when: ScheduleWhen;
  taskQueue: string;
  /** The server has ll-loop's search attributes (set LoopName/LoopCategory/LoopCheckout on each run). */
  searchAttributes: boolean;
  /** Runs that do not end in a success terminal fail the workflow, which pauses the schedule. */
  pauseOnFailure: boolean;
  /** How the scheduled runs are carried out (runs/start/start-run.ts runTuning). */
  tuning: RunTuning;
  /** What the schedule does when a run is due while its previous one still runs (default skip). */
  overlap?: OverlapName;
  /** The scheduled runs' scope lock (its `wait` follows the overlap policy); omitted: `--no-lock`. */
  lock?: ScopeLockRequest;
  /** Context keys given on the command line: data, not code (LoopWorkflowInput.dataContext). */
  dataContext?: string[];
}

/** `--overlap` names, Temporal's schedule overlap policies. */
const OVERLAP_POLICIES = {
  skip: ScheduleOverlapPolicy.SKIP,
  'buffer-one': ScheduleOverlapPolicy.BUFFER_ONE,
  'buffer-all': ScheduleOverlapPolicy.BUFFER_ALL,
  'cancel-other': ScheduleOverlapPolicy.CANCEL_OTHER,
  'allow-all': ScheduleOverlapPolicy.ALLOW_ALL,
} as const;
export type OverlapName = keyof typeof OVERLAP_POLICIES;

export function overlapOf(name: string | undefined): OverlapName {
  if (name === undefined) return 'skip';
  if (Object.hasOwn(OVERLAP_POLICIES, name)) return name as OverlapName;
  throw new UsageError(
    `--overlap ${name} is not an overlap policy`,
    `use one of ${Object.keys(OVERLAP_POLICIES).join(', ')}`,
  );
}

/**
 * Whether a scheduled run whose scopes are busy waits for them: it skips (ends at once as scope
 * busy) under `skip`, like a run due while the previous one still runs; it waits its turn under
 * every other policy, and under `--pause-on-failure`, where Temporal would take the skip for a
 * failed run and pause the schedule.
 */
export function scheduledRunsWait(overlap: OverlapName, pauseOnFailure = false): boolean {
  return overlap !== 'skip' || pauseOnFailure;
}

/** One schedule as the CLI shows it. */
export interface LoopScheduleInfo {
  id: string;
  loop: string;
  when: string;
  paused: boolean;
  note?: string;
  pauseOnFailure: boolean;
  taskQueue?: string;
  file?: string;
  cwd?: string;
  /** Next fire times, ISO 8601. */
  next: string[];
  /** Workflow ids of the most recent runs it started, oldest first. */
  recent: string[];
}

/** Create the schedule. Throws LoopScheduleExistsError, or UsageError for a spec Temporal rejects. */
export async function createLoopSchedule(req: CreateScheduleRequest): Promise<LoopScheduleInfo> {
  const { client, definition, file, cwd, when } = req;
  const scheduleId = scheduleIdFor(definition.name);
  const input: LoopWorkflowInput = {
    definition,
    // Every run closes as it ended (a failed run is Failed: `--pause-on-failure` pauses on it).
    options: recordedRunOptions({
      placement: { cwd, searchAttributes: req.searchAttributes },
      tuning: req.tuning,
      rules: CURRENT_RUN_RULES,
    }),
    ...(req.lock ? { lock: req.lock } : {}),
    ...(req.dataContext?.length ? { dataContext: req.dataContext } : {}),
  };
  // The release that created the schedule; each run it starts carries it (see start-run.ts).
  const build = buildInfo();
  const memo = {
    cwd,
    file,
    loop: definition.name,
    loop_version: loopVersion(definition),
    version: build.version,
    build_id: build.build_id,
  };
  try {
    await client.schedule.create<typeof loopWorkflow>({
      scheduleId,
      spec: 'cron' in when ? { cronExpressions: [when.cron] } : { intervals: [{ every: when.everyMs }] },
      action: {
        type: 'startWorkflow',
        workflowType: LOOP_WORKFLOW_TYPE,
        // Temporal appends the scheduled time: runs are `<loop>-<ISO 8601 time>`.
        workflowId: definition.name.replace(/[^A-Za-z0-9._-]+/g, '-'),
        taskQueue: req.taskQueue,
        args: [input],
        memo,
        staticSummary: `ll-loop: ${definition.name} (scheduled)`.slice(0, 190),
        staticDetails:
          `${detailsDescription(definition.description)}\n\nschedule: ${scheduleId}\nfile: ${file}\ncwd: ${cwd}`.trim(),
        ...(req.searchAttributes
          ? {
              typedSearchAttributes: [
                { key: defineSearchAttributeKey('LoopName', 'KEYWORD'), value: definition.name },
                { key: defineSearchAttributeKey('LoopCategory', 'KEYWORD'), value: definition.category ?? '' },
                // Each scheduled run belongs to the checkout the schedule was made in (find-runs.ts).
                { key: defineSearchAttributeKey('LoopCheckout', 'KEYWORD'), value: checkoutKey(cwd) },
              ],
            }
          : {}),
      },
      policies: { overlap: OVERLAP_POLICIES[req.overlap ?? 'skip'], pauseOnFailure: req.pauseOnFailure },
      memo: { ...memo, when: describeWhen(when), overlap: req.overlap ?? 'skip' },
    });
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) throw new LoopScheduleExistsError(scheduleId, definition.name);
    if (err instanceof TypeError && 'cron' in when) {
      throw new UsageError(
        `--cron "${when.cron}" is not a valid cron expression: ${err.message}`,
        'write five fields: minute hour day-of-month month day-of-week, e.g. "0 * * * *"',
      );
    }
    throw err;
  }
  return describeLoopSchedule(client, definition.name);
}

function memoOf(s: ScheduleSummary | ScheduleDescription): {
  loop?: string;
  file?: string;
  cwd?: string;
  when?: string;
} {
  const memo = (s.memo ?? {}) as Record<string, unknown>;
  const text = (k: string) => (typeof memo[k] === 'string' ? (memo[k] as string) : undefined);
  const out: { loop?: string; file?: string; cwd?: string; when?: string } = {};
  for (const key of ['loop', 'file', 'cwd', 'when'] as const) {
    const value = text(key);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function infoOf(
  s: ScheduleSummary | ScheduleDescription,
  extra: { pauseOnFailure: boolean; taskQueue?: string },
): LoopScheduleInfo {
  const memo = memoOf(s);
  const info: LoopScheduleInfo = {
    id: s.scheduleId,
    loop: memo.loop ?? s.scheduleId.slice(SCHEDULE_ID_PREFIX.length),
    when: memo.when ?? '?',
    paused: s.state.paused,
    pauseOnFailure: extra.pauseOnFailure,
    next: s.info.nextActionTimes.map((d) => d.toISOString()),
    recent: s.info.recentActions.map((a) => a.action.workflow.workflowId),
  };
  if (s.state.note) info.note = s.state.note;
  if (extra.taskQueue) info.taskQueue = extra.taskQueue;
  if (memo.file) info.file = memo.file;
  if (memo.cwd) info.cwd = memo.cwd;
  return info;
}

/** Run a schedule operation, turning "not found" into LoopScheduleNotFoundError. */
async function onSchedule<T>(scheduleId: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw new LoopScheduleNotFoundError(scheduleId);
    throw err;
  }
}

/** The schedule of loop `loop`, in full. */
export async function describeLoopSchedule(
  client: Client,
  loop: string,
): Promise<LoopScheduleInfo & { running: string[]; actionsTaken: number }> {
  const id = scheduleIdFor(loop);
  const d = await onSchedule(id, () => client.schedule.getHandle(id).describe());
  return {
    ...infoOf(d, { pauseOnFailure: d.policies.pauseOnFailure, taskQueue: d.action.taskQueue }),
    running: d.info.runningActions.map((a) => a.workflow.workflowId),
    actionsTaken: d.info.numActionsTaken,
  };
}

/** Every ll-loop schedule on the server (those whose action starts the loop workflow). */
export async function listLoopSchedules(client: Client): Promise<LoopScheduleInfo[]> {
  const out: LoopScheduleInfo[] = [];
  for await (const s of client.schedule.list({ pageSize: 100 })) {
    if (!s.scheduleId.startsWith(SCHEDULE_ID_PREFIX) || s.action?.workflowType !== LOOP_WORKFLOW_TYPE) continue;
    out.push(infoOf(s, { pauseOnFailure: false }));
  }
  // The summary lacks the policies; describe each (few schedules per project).
  const withPolicies = await Promise.all(
    out.map((s) =>
      describeLoopSchedule(client, s.loop).then(
        (d) => ({ ...s, pauseOnFailure: d.pauseOnFailure, ...(d.taskQueue ? { taskQueue: d.taskQueue } : {}) }),
        () => s,
      ),
    ),
  );
  return withPolicies.sort((a, b) => a.id.localeCompare(b.id));
}

/** Pause or unpause; the note is shown in the Web UI and by `schedule list`. */
export async function setLoopSchedulePaused(client: Client, loop: string, paused: boolean): Promise<void> {
  const id = scheduleIdFor(loop);
  const handle = client.schedule.getHandle(id);
  await onSchedule(id, () =>
    paused
      ? handle.pause('paused with ll-loop schedule pause')
      : handle.unpause('unpaused with ll-loop schedule unpause'),
  );
}

/**
 * Start a run now (the overlap policy applies: skipped while a run is going). Returns the new
 * run's workflow id when it appears within `waitMs`, else undefined.
 */
export async function triggerLoopSchedule(client: Client, loop: string, waitMs = 3_000): Promise<string | undefined> {
  const id = scheduleIdFor(loop);
  const handle = client.schedule.getHandle(id);
  const before = await onSchedule(id, () => handle.describe());
  // By run: two triggers within one second start runs of the same workflow id (a scheduled run's
  // id is the schedule's and the second it was due), each with its own first run id.
  const key = (a: ScheduleExecutionResult) =>
    `${a.action.workflow.workflowId}/${a.action.workflow.firstExecutionRunId}`;
  const seen = new Set(before.info.recentActions.map(key));
  // The SDK's default for a trigger is ALLOW_ALL, whose runs the schedule does not track (no
  // pause-on-failure, no overlap check): use the schedule's own policy.
  await onSchedule(id, () => handle.trigger(ScheduleOverlapPolicy.SKIP));
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const now = await handle.describe();
    const started = now.info.recentActions.find((a) => !seen.has(key(a)));
    if (started) return started.action.workflow.workflowId;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** Delete the schedule (runs it started are not affected). */
export async function deleteLoopSchedule(client: Client, loop: string): Promise<void> {
  const id = scheduleIdFor(loop);
  await onSchedule(id, () => client.schedule.getHandle(id).delete());
}

/**
 * `schedule backfill`: the runs the schedule would have started between `start` and `end` (the
 * missed runs of a period, e.g. while the machine was off), started now under `overlap`
 * (default: the schedule's own policy).
 */
export async function backfillLoopSchedule(
  client: Client,
  loop: string,
  start: Date,
  end: Date,
  overlap?: OverlapName,
): Promise<void> {
  const id = scheduleIdFor(loop);
  const handle = client.schedule.getHandle(id);
  const own = ((await onSchedule(id, () => handle.describe())).memo?.overlap as OverlapName | undefined) ?? 'skip';
  await onSchedule(id, () => handle.backfill([{ start, end, overlap: OVERLAP_POLICIES[overlap ?? own] }]));
}

/**
 * The environment a schedule's runs see: that of the command that made the schedule, as a run's
 * is that of the command that started it (host/run-env.ts). A scheduled run has no command of its
 * own, and the worker that runs it was started by whichever shell came first: its environment is
 * no one's to give. So `ll-loop schedule` leaves its environment in
 * `<run-env dir>/schedules/<server and schedule id>.json` (the same format, mode 0600 in a 0700
 * directory, never in Temporal); a worker of that server gives it to the schedule's runs, found
 * by the run's id (`<action id>-<RFC 3339 time>`, as Temporal names a scheduled run), and
 * `schedule delete` removes it, as does a worker's sweep once the schedule is gone from its
 * server (worker/run-env-sweep.ts). A machine without the file (a pool worker elsewhere) has none
 * to give: the run then sees the worker's minimal environment (activities/action-env.ts).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readEnvFile, runEnvDir, writeEnvFile } from './run-env.js';

/** Every ll-loop schedule id starts with this; the rest is the loop's name (runs/schedules). */
export const SCHEDULE_ID_PREFIX = 'll-loop-';

/** Where schedules' environment files go: `<run-env dir>/schedules` (a run's sweep skips it). */
export function scheduleEnvDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(runEnvDir(env), 'schedules');
}

/** The file of schedule `scheduleId` on `server` (serverKey: `address/namespace`). */
export function scheduleEnvFile(scheduleId: string, server: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(scheduleEnvDir(env), `${encodeURIComponent(`${server}/${scheduleId}`)}.json`);
}

/** Leaves `values` for the runs of `scheduleId` on `server` (replacing an earlier schedule's). */
export function writeScheduleEnv(
  scheduleId: string,
  server: string,
  values: NodeJS.ProcessEnv,
  env: NodeJS.ProcessEnv = process.env,
): void {
  writeEnvFile(scheduleEnvFile(scheduleId, server, env), values, { server, schedule: scheduleId });
}

export function removeScheduleEnv(scheduleId: string, server: string, env: NodeJS.ProcessEnv = process.env): void {
  rmSync(scheduleEnvFile(scheduleId, server, env), { force: true });
}

/**
 * The schedule a run of it belongs to, from its id: Temporal names a scheduled run after the
 * schedule's action id (the loop's name, runs/schedules/schedules.ts) plus `-` and the time it
 * was due in RFC 3339 (`fix-lint-2026-11-24T03:00:00Z`). Undefined for any other id.
 */
export function scheduleIdOfRun(workflowId: string): string | undefined {
  const m = /^(.+)-\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/.exec(workflowId);
  return m ? `${SCHEDULE_ID_PREFIX}${m[1]}` : undefined;
}

/**
 * The environment left for the schedule that started `workflowId` or, for a sub-loop or fan-out
 * item (`<parent>.<state>.<step>…`), its nearest scheduled ancestor; undefined when there is none.
 */
export function scheduleEnvFor(
  workflowId: string,
  server: string,
  env: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv | undefined {
  for (let id = workflowId; ; id = id.slice(0, id.lastIndexOf('.'))) {
    const scheduleId = scheduleIdOfRun(id);
    if (scheduleId !== undefined) {
      const found = readEnvFile(scheduleEnvFile(scheduleId, server, env));
      if (found) return found;
    }
    if (!id.includes('.')) return undefined;
  }
}

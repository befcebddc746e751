/**
 * A worker's sweep of run environment files (host/run-env.ts) whose run is over: at start-up
 * and then every few minutes, since a run can end where no code of ll-loop sees it (terminated,
 * refused its scopes while nobody followed it).
 *
 * A file is removed when, on the worker's own server, its run is closed (and the file is older
 * than the close: a new run of the same id rewrites it), or is not found and the file, written
 * for this server, is older than {@link NOT_FOUND_GRACE_MS} (a command writes it just before it
 * starts the run). A file of another server, or of an older release that recorded no server and
 * whose run is not found here, is left alone: that run may be open elsewhere.
 *
 * A schedule's file (host/schedule-env.ts) goes when its schedule is not found on the worker's
 * server {@link NOT_FOUND_GRACE_MS} after it was written (deleted other than by `schedule delete`,
 * which removes it itself). Each sweep also removes the large values' files of actions whose
 * process was killed (activities/shell-launch.ts).
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ScheduleNotFoundError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { parseRunEnvFile, runEnvDir, runIdOfFile } from '../host/run-env.js';
import { scheduleEnvDir } from '../host/schedule-env.js';
import { sweepDeadActionDirs } from '../activities/shell-launch.js';

/** A file whose run this worker's server does not know is kept this long after it was written. */
export const NOT_FOUND_GRACE_MS = 10 * 60_000;
/** How often a long-running worker sweeps again. */
const SWEEP_INTERVAL_MS = 5 * 60_000;

export interface SweepOptions {
  client: Client;
  /** This worker's server, as serverKey() names it. */
  server: string;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/** Remove the files of runs that are over; returns the run ids whose files were removed. */
export async function sweepRunEnv(opts: SweepOptions): Promise<string[]> {
  const dir = runEnvDir(opts.env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const id = runIdOfFile(name);
    if (id === undefined) continue;
    const path = join(dir, name);
    if (await isOver(path, id, opts)) {
      rmSync(path, { force: true });
      removed.push(id);
    }
  }
  return removed;
}

async function isOver(path: string, id: string, opts: SweepOptions): Promise<boolean> {
  let written: number;
  let server: string | undefined;
  try {
    written = statSync(path).mtimeMs;
    server = parseRunEnvFile(readFileSync(path, 'utf8')).server;
  } catch {
    return false; // gone meanwhile, or being written: not this sweep's to judge
  }
  if (server !== undefined && server !== opts.server) return false;
  try {
    const d = await opts.client.workflow.getHandle(id).describe();
    if (d.status.name === 'RUNNING') return false;
    return d.closeTime === undefined || written <= d.closeTime.getTime();
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) return false; // the server did not answer: next time
    return server !== undefined && (opts.now ?? Date.now)() - written > NOT_FOUND_GRACE_MS;
  }
}

/** Remove the files of schedules gone from this server; returns their schedule ids. */
export async function sweepScheduleEnv(opts: SweepOptions): Promise<string[]> {
  const dir = scheduleEnvDir(opts.env);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let written: number;
    let file: ReturnType<typeof parseRunEnvFile>;
    try {
      written = statSync(path).mtimeMs;
      file = parseRunEnvFile(readFileSync(path, 'utf8'));
    } catch {
      continue; // gone meanwhile, or being written
    }
    if (file.server !== opts.server || file.schedule === undefined) continue;
    if ((opts.now ?? Date.now)() - written <= NOT_FOUND_GRACE_MS) continue;
    try {
      await opts.client.schedule.getHandle(file.schedule).describe();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) continue; // the server did not answer: next time
      rmSync(path, { force: true });
      removed.push(file.schedule);
    }
  }
  return removed;
}

/** Sweep now and every SWEEP_INTERVAL_MS until the returned function is called; errors are logged. */
export function startRunEnvSweeps(opts: SweepOptions & { log: (line: string) => void }): () => void {
  let running = false;
  const once = async () => {
    if (running) return;
    running = true;
    try {
      const removed = await sweepRunEnv(opts);
      if (removed.length)
        opts.log(
          `removed the environment files of ${removed.length} ended run${removed.length === 1 ? '' : 's'}: ${removed.join(', ')}`,
        );
      const schedules = await sweepScheduleEnv(opts);
      if (schedules.length) opts.log(`removed the environment files of deleted schedules: ${schedules.join(', ')}`);
      const dirs = sweepDeadActionDirs();
      if (dirs.length) opts.log(`removed the value files of killed actions: ${dirs.join(', ')}`);
    } catch (err) {
      opts.log(`could not sweep run environment files: ${(err as Error).message}`);
    } finally {
      running = false;
    }
  };
  void once();
  const timer = setInterval(() => void once(), SWEEP_INTERVAL_MS).unref();
  return () => clearInterval(timer);
}

/**
 * `run --background`: the worker that runs the loop is a detached `ll-loop worker` process of its
 * own, polling the run's task queue until the workflow closes, with its output in
 * `.loops/.running/<id>.worker.log`. The starting command returns at once.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../worker/paths.js';
import { runningDir } from '../../worker/run-files.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

/** The installed entry point, run with the current Node. */
export const LL_LOOP_BIN = join(PACKAGE_ROOT, 'bin', 'll-loop.js');

export function workerLogPath(cwd: string, instanceId: string): string {
  return join(runningDir(cwd), `${instanceId}.worker.log`);
}

/** The background worker could not be spawned. */
export class BackgroundWorkerError extends CliError {
  override readonly name = 'BackgroundWorkerError';
  constructor(instanceId: string, why: string) {
    super(`could not start the background worker for ${instanceId}: ${why}`, `run it in the foreground instead: ll-loop resume ${instanceId}`, EXIT.runError);
  }
}

/**
 * Spawn `ll-loop worker --task-queue <queue> --until-closed <id>` detached from this process
 * (its own process group, stdin closed, stdout and stderr appended to the worker log), so it
 * outlives the terminal. Returns its pid and log file.
 */
export function spawnBackgroundWorker(cwd: string, taskQueue: string, instanceId: string, env: NodeJS.ProcessEnv = process.env): { pid: number; logFile: string } {
  mkdirSync(runningDir(cwd), { recursive: true });
  const logFile = workerLogPath(cwd, instanceId);
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(process.execPath, [LL_LOOP_BIN, 'worker', '--task-queue', taskQueue, '--until-closed', instanceId], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    // A failed spawn reports asynchronously; without a pid nothing was started.
    child.on('error', () => undefined);
    if (child.pid === undefined) throw new BackgroundWorkerError(instanceId, `${process.execPath} could not be spawned`);
    child.unref();
    return { pid: child.pid, logFile };
  } finally {
    closeSync(fd);
  }
}

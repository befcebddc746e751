/**
 * What a project's checkout worker leaves in `.loops/.worker/`, read as a test reads it: its log,
 * its record (pid, build) and its start socket's path, spelled out as docs/cli.md documents them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The checkout worker's log so far ('' before it has one). */
export function workerLog(dir: string): string {
  const file = join(dir, '.loops', '.worker', 'worker.log');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** The checkout worker's record, or undefined while there is none (or it is being rewritten). */
function workerRecord(dir: string): { pid: number; code_id: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, '.loops', '.worker', 'worker.json'), 'utf8')) as {
      pid: number;
      code_id: string;
    };
  } catch {
    return undefined;
  }
}

export function workerPid(dir: string): number | undefined {
  return workerRecord(dir)?.pid;
}

/** The socket through which the checkout worker takes `run`'s starts, `inbox` and follows. */
export const startSocketFile = (dir: string): string => join(dir, '.loops', '.worker', 'start', 's.sock');

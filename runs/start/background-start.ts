/**
 * What `ll-loop run --background` prints once its run is started, by the command or by the
 * checkout's worker (run-loop.ts), or queued by that worker (printed by the bin's early start,
 * early-start.ts): the run, who serves it, its Web UI page and how to follow it — the same lines
 * either way (a queued run starts a moment later, and every command that names it waits for
 * that: runs/find/queued-runs.ts). Light: the bin loads it before, and instead of, the CLI.
 */
import { relative } from 'node:path';
import { workerLogPath, type WorkerRecord } from '../../host/checkout.js';
import type { RunInfo } from '../../reporters/reporter.js';

export interface BackgroundStart {
  instanceId: string;
  taskQueue: string;
  worker: WorkerRecord | undefined;
  cwd: string;
  uiUrl: RunInfo['uiUrl'];
}

export function printBackgroundStart(out: (t: string) => void, json: boolean, r: BackgroundStart): void {
  if (json) {
    out(
      `${JSON.stringify({ instance_id: r.instanceId, task_queue: r.taskQueue, worker_pid: r.worker?.pid ?? null, worker_host: r.worker?.host ?? null })}\n`,
    );
    return;
  }
  out(`started ${r.instanceId} in the background\n`);
  if (r.worker)
    out(
      `  worker: pid ${r.worker.pid} on ${r.worker.host} serves this checkout (log ${relative(r.cwd, workerLogPath(r.worker.root)) || workerLogPath(r.worker.root)}); the run goes on when this terminal closes\n`,
    );
  else
    out(
      `  queued on task queue ${r.taskQueue}; it runs once a worker polls it: ll-loop worker --task-queue ${r.taskQueue}\n`,
    );
  if (r.uiUrl) out(`  Web UI: ${r.uiUrl}\n`);
  out(`  follow: ll-loop status ${r.instanceId} --follow\n  stop:   ll-loop stop ${r.instanceId}\n`);
}

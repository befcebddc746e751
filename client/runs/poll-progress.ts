/**
 * Following a run that a worker elsewhere executes (`run --task-queue Q`): this process has no
 * event hub for it, so progress comes from polling the workflow's `status` query, one line each
 * time the state, pass or phase changes. The result is awaited through the client.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { statusQuery, type LoopStatus } from '../../workflows/definitions.js';
import { awaitResult, delay } from './await-result.js';
import { exitCodeFor } from '../exit-codes.js';
import type { Reporter, RunInfo } from '../reporters/reporter.js';

const POLL_EVERY_MS = 1_000;
const QUERY_TIMEOUT_MS = 5_000;

export interface PollingFollow {
  handle: WorkflowHandle;
  taskQueue: string;
  /** Prints the start line and the final result (human or JSON). */
  reporter: Reporter;
  info: RunInfo;
  /** Progress lines (nothing with --json). */
  progress?: (text: string) => void;
  err: (text: string) => void;
}

async function queryStatus(handle: WorkflowHandle): Promise<LoopStatus | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), QUERY_TIMEOUT_MS)));
  try {
    return await Promise.race([handle.query(statusQuery), timeout]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** One progress line: `[2/10] check · action · last verdict no`. */
export function statusLine(s: LoopStatus): string {
  return `[${s.iteration}/${s.max_iterations}] ${s.state} · ${s.phase}${s.last_verdict ? ` · last verdict ${s.last_verdict}` : ''}\n`;
}

/** Wait for the run's end, printing status changes; returns its exit code. */
export async function followByPolling(f: PollingFollow): Promise<number> {
  f.reporter.onStart?.(f.info);
  let done = false;
  const poll = (async () => {
    let last = '';
    let waitingShown = false;
    while (!done) {
      const status = await queryStatus(f.handle);
      if (done) break;
      if (status && status.phase !== 'done') {
        const line = statusLine(status);
        if (line !== last) f.progress?.(line);
        last = line;
      } else if (!status && !waitingShown) {
        waitingShown = true;
        f.err(`note: no worker has answered yet on task queue ${f.taskQueue}; start one with: ll-loop worker --task-queue ${f.taskQueue}\n`);
      }
      await delay(POLL_EVERY_MS);
    }
  })();
  try {
    const result = await awaitResult(f.handle, { onDisconnect: (why) => f.err(`note: lost the connection to Temporal (${why}); waiting for it to come back\n`) });
    f.reporter.onResult(result, f.info);
    return exitCodeFor(result);
  } finally {
    // The poller notices on its next turn; nothing waits for its last query.
    done = true;
    void poll;
  }
}

/**
 * Whether anything serves an open run: every {@link WATCH_MS}, the workers that poll its task
 * queue (runs/find/queue-pollers.ts, as `ll-loop worker status` sees them). When none does, the
 * page says so (the run waits, safe, until a worker comes back); when one does again, it clears.
 */
import type { Client } from '@temporalio/client';
import { queueWorkers } from '../../runs/workers/queue-pollers.js';

const WATCH_MS = 3_000;

/** Starts watching `taskQueue`; `onChange(true)` when no worker serves it, `(false)` once one does. */
export function watchWorkers(client: Client, taskQueue: string, onChange: (gone: boolean) => void): () => void {
  let gone = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const check = async (): Promise<void> => {
    try {
      const now = (await queueWorkers(client, taskQueue)).length === 0;
      if (now !== gone && !stopped) {
        gone = now;
        onChange(now);
      }
    } catch {
      // Temporal itself is unreachable: the follower says so.
    }
    if (stopped) return;
    timer = setTimeout(() => void check(), WATCH_MS);
    timer.unref();
  };
  void check();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

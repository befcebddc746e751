/**
 * A command that follows a run for hours (`status --follow`, `logs --follow`) is a command of the
 * checkout like any other: when the checkout's worker dies meanwhile (SIGKILL, OOM), the open run
 * waits for a worker that only the next command would start, and the follower would wait with it
 * in silence. So every {@link KEEP_MS} the follower revives it as every command does
 * (runs/workers/checkout-worker.ts reviveCheckoutWorker: a few file reads) and says so once.
 */
import { findCheckoutRoot } from '../../host/checkout.js';
import { liveWorkerRecord } from '../../host/checkout-claim.js';
import { reviveCheckoutWorker } from '../workers/checkout-worker.js';

const KEEP_MS = 2_000;

/** Keeps the worker of the checkout of `cwd` up while following; returns the function that stops. */
export function keepCheckoutWorker(cwd: string, note: (text: string) => void, everyMs = KEEP_MS): () => void {
  const root = findCheckoutRoot(cwd);
  if (root === undefined) return () => undefined;
  let serving = liveWorkerRecord(root)?.pid;
  const timer = setInterval(() => {
    const now = liveWorkerRecord(root)?.pid;
    if (now === undefined) {
      if (serving !== undefined)
        note(
          `note: the checkout's worker (pid ${serving}) is gone; starting another: the run goes on (an action that was running runs again)\n`,
        );
      reviveCheckoutWorker(cwd);
    }
    serving = now;
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A run's stop, seen while one of its quick actions runs in a burst. The burst is a local activity:
 * it holds the run's workflow task, and Temporal hands the run a stop request (`ll-loop stop`,
 * Ctrl-C, the Web UI, `temporal workflow cancel`) only with its next task, which comes when the
 * burst ends or at the task's heartbeat, 8 s into it. A remote action is stopped within half a
 * second; a quick one waited those 8 s, running on. The worker sees the stop itself instead:
 *  - asked through this worker (a follower's Ctrl-C): at once (host/stop-requests.ts);
 *  - asked anywhere else: from the run's description (`cancelRequested`, set as soon as the server
 *    accepts the request), looked at every {@link LOOK_EVERY_MS} once the burst has run
 *    {@link LOOK_AFTER_MS}. A shorter burst (its actions' time is bounded by 1 s) ends its task
 *    sooner, so it needs no look. At most {@link MAX_LOOKING} runs are looked at at once: beyond,
 *    a stop waits for the task as before.
 */
import type { Client } from '@temporalio/client';
import { onStopRequest, stopWasRequested } from '../host/stop-requests.js';

const LOOK_AFTER_MS = 1_000;
const LOOK_EVERY_MS = 500;
const MAX_LOOKING = 16;

let looking = 0;

export interface StopWatch {
  /** Whether the run's stop was seen. */
  readonly stopped: boolean;
  /** Stop watching (the burst ended). */
  dispose(): void;
}

/** Watch run `workflowId` for a stop while its burst runs; `onStop` is called once, when it is seen. */
export function watchForStop(workflowId: string, client: Client | undefined, onStop: () => void): StopWatch {
  let stopped = false;
  let disposed = false;
  let counted = false;
  let timer: NodeJS.Timeout | undefined;
  const seen = (): void => {
    if (stopped || disposed) return;
    stopped = true;
    watch.dispose();
    onStop();
  };
  const unsubscribe = onStopRequest(workflowId, seen);
  const look = async (): Promise<void> => {
    if (disposed) return;
    try {
      const described = await client!.workflow.getHandle(workflowId).describe();
      if (described.raw.workflowExtendedInfo?.cancelRequested === true) return seen();
    } catch {
      // The server is away: the stop, if any, comes with the workflow task as before.
    }
    if (!disposed) timer = setTimeout(() => void look(), LOOK_EVERY_MS);
  };
  const watch: StopWatch = {
    get stopped() {
      return stopped;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      if (counted) looking -= 1;
    },
  };
  if (stopWasRequested(workflowId)) seen();
  else if (client !== undefined)
    timer = setTimeout(() => {
      if (disposed || looking >= MAX_LOOKING) return;
      looking += 1;
      counted = true;
      void look();
    }, LOOK_AFTER_MS);
  return watch;
}

/**
 * Stops of runs asked through this process (a follower's Ctrl-C that the checkout's worker passed
 * on to Temporal), for the quick actions this process runs for them (activities/stop-watch.ts): a
 * local activity holds its run's workflow task, so the run itself hears of its stop only when that
 * task ends. A process-wide table: the worker's socket server and its activities share it.
 */

/** How long a stop is remembered: a burst that starts after it (the same workflow task) still sees it. */
const REMEMBER_MS = 60_000;

const stopped = new Map<string, number>();
const listeners = new Map<string, Set<() => void>>();

/** Run `workflowId`'s stop was accepted by Temporal: tell whoever runs its actions here. */
export function stopRequested(workflowId: string): void {
  const now = Date.now();
  for (const [id, at] of stopped) if (now - at > REMEMBER_MS) stopped.delete(id);
  stopped.set(workflowId, now);
  for (const listener of listeners.get(workflowId) ?? []) listener();
}

/** Whether a stop of `workflowId` was asked through this process lately. */
export function stopWasRequested(workflowId: string): boolean {
  const at = stopped.get(workflowId);
  return at !== undefined && Date.now() - at <= REMEMBER_MS;
}

/** Call `listener` when `workflowId`'s stop is asked through this process; returns the unsubscribe. */
export function onStopRequest(workflowId: string, listener: () => void): () => void {
  let set = listeners.get(workflowId);
  if (!set) listeners.set(workflowId, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) listeners.delete(workflowId);
  };
}

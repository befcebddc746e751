/**
 * A person's pause or steer, as the runs this process serves took them: for the actions an
 * action's activity runs after it (activities/burst-after.ts). Such an activity may run for
 * minutes (an agent), and a control that reached its run meanwhile must act when the action ends,
 * before anything else runs (and one that reaches it while the actions after it run, after the
 * running one); the activity cannot ask the run without a round trip through the
 * server, but the run's status reaches this process at once (the `state` sink of
 * worker/event-hub.ts), and it names the pause or steer. A process-wide table: the worker's sinks
 * and its activities share it. A run whose workflow task another worker ran is not seen here: its
 * control acts after the quick actions, as it does after a burst's (workflows/burst.ts).
 */
import type { Snapshot } from '../fsm/run/snapshot.js';

/** How long a control is remembered: longer than any action's activity waits for one is no use. */
const REMEMBER_MS = 24 * 3600 * 1000;
/** Runs remembered at most (the oldest is forgotten first). */
const MAX_RUNS = 4096;

const seen = new Map<string, number>();
/** Who waits for a control of each run (activities/burst-after.ts, while its actions run). */
const watchers = new Map<string, Set<() => void>>();

/** Run `workflowId` reported `snapshot`: remember when it last had a person's pause or steer on it. */
export function noteControls(workflowId: string, snapshot: Snapshot, now = Date.now()): void {
  if (snapshot.status !== 'running' || (snapshot.pause === undefined && snapshot.steer === undefined)) return;
  seen.delete(workflowId);
  seen.set(workflowId, now);
  if (seen.size > MAX_RUNS) seen.delete(seen.keys().next().value!);
  for (const watcher of watchers.get(workflowId) ?? []) watcher();
}

/** `then` is called whenever run `workflowId` reports a person's pause or steer, until the returned call. */
export function onControl(workflowId: string, then: () => void): () => void {
  let set = watchers.get(workflowId);
  if (set === undefined) watchers.set(workflowId, (set = new Set()));
  set.add(then);
  return () => {
    set.delete(then);
    if (set.size === 0 && watchers.get(workflowId) === set) watchers.delete(workflowId);
  };
}

/** Whether run `workflowId` had a person's pause or steer on it at or after `since` (epoch ms). */
export function controlledSince(workflowId: string, since: number, now = Date.now()): boolean {
  const at = seen.get(workflowId);
  if (at !== undefined && now - at > REMEMBER_MS) seen.delete(workflowId);
  return at !== undefined && at >= since && now - at <= REMEMBER_MS;
}

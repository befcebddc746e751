/**
 * Following one run on a Temporal client until it closes: the runs service's `follow` on the
 * Temporal SDK (runs/service/direct.ts) and what every follower on its own connection uses
 * (follow-run.ts). The events come from the run's history (follow-events.ts), the live ones from
 * its events file when this host's worker writes it.
 */
import { dirname, join } from 'node:path';
import type { Client } from '@temporalio/client';
import { runFileStem } from '../../host/run-files.js';
import { followEvents, type FollowedRun } from './follow-events.js';
import type { RunFollow } from './run-follow.js';
import { onAbort } from './interrupt.js';
import { noteWhileQueued } from './queue-note.js';

/** Follow one run on `client` until it closes (the runs service's `follow` on the Temporal SDK). */
export function followOn(client: Client, req: Omit<RunFollow, 'cwd'>): Promise<FollowedRun> {
  const { workflowId, eventsFile } = req;
  onAbort(req.cancelRun, () => {
    const chain = req.firstRunId === undefined ? undefined : { firstExecutionRunId: req.firstRunId };
    void client.workflow
      .getHandle(workflowId, undefined, chain)
      .cancel()
      .catch(() => undefined);
  });
  noteWhileQueued(client, workflowId, req.lock, req.onNote ?? (() => undefined));
  return followEvents(client, workflowId, {
    follow: true,
    actionOutput: req.actionOutput,
    // A worker on this host writes the run's events (and its sub-loops') beside each other.
    ...(eventsFile === undefined
      ? {}
      : {
          ...(req.fileWaitMs === undefined ? {} : { fileWaitMs: req.fileWaitMs }),
          eventsFileOf: (id: string) =>
            id === workflowId ? eventsFile : join(dirname(eventsFile), `${runFileStem(id)}.events.jsonl`),
        }),
    ...(req.onInput ? { onInput: req.onInput } : {}),
    onEvent: req.onEvent,
    ...(req.onDisconnect ? { onDisconnect: req.onDisconnect } : {}),
    ...(req.onReconnect ? { onReconnect: req.onReconnect } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
  });
}

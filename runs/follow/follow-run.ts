/**
 * Following a run to its end on the terminal — `run`, `resume`, `status --follow` and `monitor`
 * alike, whoever runs its worker: the progress display is fed by the events of its history
 * (follow-events.ts), and the outcome becomes the exit code. When this process hosts the run's
 * worker, the worker runs until the run closes and the events are read.
 */
import { dirname, join } from 'node:path';
import { runFileStem } from '../../host/run-files.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { Reporter, RunInfo } from '../../reporters/reporter.js';
import { followEvents, type FollowedRun } from './follow-events.js';
import { disconnectNote, endOfRun, LOCAL_WRITER_WAIT_MS, RECONNECT_NOTE } from './run-end.js';

export { runInfo } from '../find/run-info.js';
export { createReporter, endOfRun } from './run-end.js';

export interface FollowRun {
  client: Client;
  workflowId: string;
  /** Made once the run's definition is known (from its history) when not given. */
  reporter: Reporter | ((maxIterations: number) => Reporter);
  info: RunInfo;
  /** Notices (lost connection…) go here, never into stdout's progress or JSON. */
  err: (text: string) => void;
  /** The run's worker (or workers), when this process hosts it: it runs until the run has closed. */
  worker?: Pick<Worker, 'runUntil'>;
  /** How an end without a loop result is shown with `--json` (else it is an error). */
  json?: (text: string) => void;
  /** This host's worker serves the run, so it writes the run's events file (FollowEventsOptions.fileWaitMs). */
  localWriter?: boolean;
  /** Another listener of the run's events (the inline question of a human state). */
  onEvent?: (event: TimedEvent) => void;
}

/** Show the run's progress until it closes; return its exit code. */
export async function followRun(f: FollowRun): Promise<number> {
  let reporter = typeof f.reporter === 'function' ? undefined : f.reporter;
  reporter?.onStart?.(f.info);
  const eventsFile = f.info.eventsFile;
  const follow = (): Promise<FollowedRun> =>
    followEvents(f.client, f.workflowId, {
      follow: true,
      // The progress display shows what actions printed; a JSON Lines stream stays as recorded.
      actionOutput: f.json === undefined,
      // A worker on this host writes the run's events (and its sub-loops') beside each other.
      ...(eventsFile === undefined
        ? {}
        : {
            ...(f.localWriter ? { fileWaitMs: LOCAL_WRITER_WAIT_MS } : {}),
            eventsFileOf: (id: string) =>
              id === f.workflowId ? eventsFile : join(dirname(eventsFile), `${runFileStem(id)}.events.jsonl`),
          }),
      onInput: (input) => {
        if (reporter || typeof f.reporter !== 'function') return;
        reporter = f.reporter(input.definition.max_iterations);
        reporter.onStart?.(f.info);
      },
      onEvent: (event) => {
        reporter?.onEvent(event);
        f.onEvent?.(event);
      },
      onDisconnect: (why) => f.err(disconnectNote(why)),
      onReconnect: () => f.err(RECONNECT_NOTE),
    });
  const followed = f.worker ? await f.worker.runUntil(follow) : await follow();
  for (const warning of followed.warnings) f.err(`warning: ${warning}\n`);
  return endOfRun(followed, reporter, f.info, f.json);
}

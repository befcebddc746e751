/**
 * Following a run to its end on the terminal — `run`, `resume`, `rerun`, `status --follow` and `monitor` alike, whoever runs its
 * worker: the progress display is fed by the run's events, and the outcome becomes the exit code.
 * When this process hosts the run's worker, the worker runs until the run closes and the events
 * are read. The events come from a runs service's `follow` (`run` through the checkout's worker),
 * else from the run's history on the caller's client (follow-on.ts, loaded then: the Temporal SDK).
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { LoopWorkflowInput, ScopeLockRequest } from '../../workflows/definitions.js';
import type { RunFollow } from './run-follow.js';
import type { Reporter, RunInfo } from '../../reporters/reporter.js';
import type { FollowedRun } from './follow-events.js';
import { disconnectNote, endOfRun, LOCAL_WRITER_WAIT_MS, RECONNECT_NOTE } from './run-end.js';

export { createReporter, endOfRun } from './run-end.js';
export type { RunFollow } from './run-follow.js';

export interface FollowRun {
  /**
   * How the run is followed: on this client (follow-on.ts), or by a runs service's `follow`
   * (`run` through the checkout's worker: runs/service/via-worker.ts).
   */
  via: Client | ((req: Omit<RunFollow, 'cwd'>) => Promise<FollowedRun>);
  workflowId: string;
  /** The first run of its chain, when the caller started it. */
  firstRunId?: string;
  /** The checkout's worker that started it for the caller (RunFollow.startedBy). */
  startedBy?: RunFollow['startedBy'];
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
  /** The run's scope lock (`--queue`: a note says once that it waits). */
  lock?: ScopeLockRequest;
  /** Aborted (Ctrl-C): the run is cancelled, and followed on to its end. */
  cancelRun?: AbortSignal;
}

/** Show the run's progress until it closes; return its exit code. */
export async function followRun(f: FollowRun): Promise<number> {
  let reporter = typeof f.reporter === 'function' ? undefined : f.reporter;
  reporter?.onStart?.(f.info);
  const req: Omit<RunFollow, 'cwd'> = {
    workflowId: f.workflowId,
    ...(f.firstRunId === undefined ? {} : { firstRunId: f.firstRunId }),
    ...(f.startedBy === undefined ? {} : { startedBy: f.startedBy }),
    ...(f.info.eventsFile === undefined ? {} : { eventsFile: f.info.eventsFile }),
    ...(f.localWriter ? { fileWaitMs: LOCAL_WRITER_WAIT_MS } : {}),
    // The progress display shows what actions printed; a JSON Lines stream stays as recorded.
    actionOutput: f.json === undefined,
    ...(f.lock ? { lock: f.lock } : {}),
    ...(f.cancelRun ? { cancelRun: f.cancelRun } : {}),
    ...(typeof f.reporter === 'function'
      ? {
          onInput: (input: LoopWorkflowInput) => {
            if (reporter || typeof f.reporter !== 'function') return;
            reporter = f.reporter(input.definition.max_iterations);
            reporter.onStart?.(f.info);
          },
        }
      : {}),
    onEvent: (event) => {
      reporter?.onEvent(event);
      f.onEvent?.(event);
    },
    onNote: f.err,
    onDisconnect: (why) => f.err(disconnectNote(why)),
    onReconnect: () => f.err(RECONNECT_NOTE),
  };
  const via = f.via;
  const follow = async (): Promise<FollowedRun> =>
    typeof via === 'function' ? via(req) : (await import('./follow-on.js')).followOn(via, req);
  const followed = f.worker ? await f.worker.runUntil(follow) : await follow();
  for (const warning of followed.warnings) f.err(`warning: ${warning}\n`);
  return endOfRun(followed, reporter, f.info, f.json);
}

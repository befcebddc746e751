/**
 * Following a run through the checkout's worker (docs/decisions.md, "A run followed through its
 * worker"): the follower on the worker's host sends one request line on the worker's start socket
 * (client/start/worker-start-wire.ts), and the worker, which already holds the Temporal client and
 * writes the run's events, follows the run for it and sends what the follower would have read
 * itself, one JSON line per message. Light on purpose: the follower reads this without loading
 * the Temporal SDK.
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import type { LoopWorkflowInput, ScopeLockRequest } from '../../workflows/definitions.js';
import type { FollowedRun } from './follow-events.js';

/** The follower's request (the first line it writes). */
export interface FollowRequest {
  kind: 'follow';
  /** The follower's build (host/build-info.ts codeId()): a worker of another build refuses. */
  code_id: string;
  /** The checkout root the follower resolved: another checkout's worker refuses. */
  root: string;
  workflow_id: string;
  /** The run the follower started (Ctrl-C cancels its chain). */
  first_run_id?: string;
  /** The run's events file on this host (RunInfo.eventsFile), read by the worker as the follower would. */
  events_file?: string;
  /** Add each action's output to its `action_complete` (the progress display shows it). */
  action_output: boolean;
  /** FollowEventsOptions.fileWaitMs. */
  file_wait_ms?: number;
  /** Send the run's input once known (a reporter made from the run's definition). */
  want_input?: boolean;
  /** `--queue`: the worker says once on the stream's `note` that the run waits, and behind whom. */
  lock?: ScopeLockRequest;
}

/** What the follower may write after its request: stop the run (Ctrl-C). */
export interface FollowCancel {
  kind: 'cancel';
}

/** The worker's messages, in order; `end`, `error` or `refused` is the last. */
export type FollowMessage =
  | { kind: 'event'; event: TimedEvent }
  | { kind: 'input'; input: LoopWorkflowInput }
  /** The worker lost / regained its connection to Temporal (the follower says so on stderr). */
  | { kind: 'disconnect'; why: string }
  | { kind: 'reconnect' }
  /** A line for the follower's stderr (the run waits in the scope queue). */
  | { kind: 'note'; text: string }
  | { kind: 'end'; followed: Omit<FollowedRun, 'events'> }
  | { kind: 'error'; message: string }
  | { kind: 'refused'; why: string };

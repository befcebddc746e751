/** What following one run is asked (the runs service's `follow`): types only. */
import type { TimedEvent } from '../../fsm/run/events.js';
import type { LoopWorkflowInput, ScopeLockRequest } from '../../workflows/definitions.js';
import type { WorkerRecord } from '../../host/checkout.js';

/** Following one run (the runs service's `follow`: runs/service/interface.ts). */
export interface RunFollow {
  /** The caller's directory (the checkout whose worker may follow the run, the server to use). */
  cwd: string;
  workflowId: string;
  /** The first run of its chain, when the caller started it (a cancel goes to that chain). */
  firstRunId?: string;
  /**
   * The checkout's worker that started the run, when the caller had it started there: followed
   * through that worker, and when it is gone, the checkout's worker is brought back (the run needs
   * one to go on) and the run followed on the caller's connection.
   */
  startedBy?: WorkerRecord;
  /** The run's events file on this host (RunInfo.eventsFile): its live events are read from it. */
  eventsFile?: string;
  /**
   * How long to wait for this host's worker to write the events a history update announces,
   * before replaying (FollowEventsOptions.fileWaitMs: LOCAL_WRITER_WAIT_MS when this host's worker
   * serves the run).
   */
  fileWaitMs?: number;
  /** Add to each `action_complete` what the action printed (the progress display shows it). */
  actionOutput: boolean;
  /** The run's scope lock: with `wait` (`--queue`), a note says once that it waits, and behind whom. */
  lock?: ScopeLockRequest;
  onEvent: (event: TimedEvent) => void;
  /** The run's input (its definition), once known. */
  onInput?: (input: LoopWorkflowInput) => void;
  /** A line for a person, not one of the run's events (`--queue`: the run waits, and behind whom). */
  onNote?: (text: string) => void;
  /** The connection to Temporal was lost (`why`) / is back: the run is safe meanwhile, the follower waits. */
  onDisconnect?: (why: string) => void;
  onReconnect?: () => void;
  /** Aborted: the run is cancelled (its action killed, its outcome recorded); following goes on to its end. */
  cancelRun?: AbortSignal;
  /** Aborted: stop following; what was read so far is returned. */
  signal?: AbortSignal;
}

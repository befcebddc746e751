/**
 * What a command (and `ll-loop ui`'s server, and the worker's socket) does to runs, behind one
 * typed interface. Its implementations: `direct`, on the Temporal SDK (direct.ts), and through the
 * checkout's worker (via-worker.ts); runs-service.ts chooses between them. The worker's handlers
 * make the same reports as `direct` (worker/socket/requests.ts).
 *
 * The worker serves the reads, starts a run on its checkout's queue and follows a run; the
 * writes (stop, pause, unpause, steer, answer, rerun, resume) are `direct`'s in both. Types only: a command loads this before it knows whether it needs the SDK.
 */
import type { StatusReport } from '../find/status-report.js';
import type { LogsQuery, LogsReport } from '../follow/logs-report.js';
import type { HistoryQuery, HistoryReport } from '../follow/history-report.js';
import type { RunningListing } from '../find/running-listings.js';
import type { WaitingRun } from '../human/find-waiting.js';
import type { ProjectScope } from '../find/project-scope.js';
import type { LockQueueReport } from '../scopes/scope-queues.js';
import type { StopReport, StopRequest } from '../control/stop-run.js';
import type { ControlOutcome, ControlRequest } from '../control/run-control.js';
import type { RerunRequest, RerunStarted } from '../control/rerun.js';
import type { ResumedRun, ResumeRequest } from '../resume/resume-run.js';
import type { AnswerReport } from '../human/answer-run.js';
import type { HumanReply } from '../../fsm/human.js';
import type { RunSummary } from '../find/find-runs.js';
import type { FollowedRun } from '../follow/follow-events.js';
import type { RunFollow } from '../follow/run-follow.js';
import type { RunStart, StartOutcome } from '../start/run-start.js';

interface InboxQuery {
  /** The command's directory. */
  cwd: string;
  /** The runs of this project only; undefined: of every project (`--all-projects`). */
  project: ProjectScope | undefined;
  /** The command's project: a run of another one is answered from its own directory. */
  here: ProjectScope;
}

export interface RunsService {
  /** The run `target` names (a run id, or a loop's open run, else its latest), as `status` reports it. */
  status(cwd: string, target: string): Promise<StatusReport>;
  /** A run's ended actions and a person's part, as `logs` reports them. */
  logs(query: LogsQuery): Promise<LogsReport>;
  /** A loop's past runs, or one run's events, as `history` reports them (never `--write`). */
  history(query: HistoryQuery): Promise<HistoryReport>;
  /** The open runs of the project at `cwd` (of every project with `allProjects`). */
  running(cwd: string, allProjects: boolean): Promise<RunningListing[]>;
  /** The runs waiting for a person. */
  inbox(query: InboxQuery): Promise<WaitingRun[]>;
  /** The scope locks: who holds, who waits. */
  queues(cwd: string): Promise<LockQueueReport[]>;
  /**
   * Start a run of a loop the caller loaded and validated: the started run (its id, where it
   * runs, who serves it), or, with `workerOnly`, the refusal when the checkout's worker cannot
   * start it. Its errors (a busy scope, no worker) are thrown. Nothing is printed.
   */
  start(req: RunStart): Promise<StartOutcome>;
  /**
   * A run's events, each handed to `req.onEvent` as it happens, until the run closes: its end
   * (result or how it closed), the events and the run's input. Nothing is printed.
   */
  follow(req: RunFollow): Promise<FollowedRun>;

  /** Stop the run: cancel it (its action killed, its outcome recorded), or terminate it with `force`. */
  stop(req: StopRequest): Promise<StopReport>;
  /** Pause, unpause or steer the run (its update taken); throws the run's refusal. */
  pause(target: RunTarget): Promise<ControlOutcome>;
  unpause(target: RunTarget): Promise<ControlOutcome>;
  steer(target: RunTarget, steer: Omit<Extract<ControlRequest, { kind: 'steer' }>, 'kind'>): Promise<ControlOutcome>;
  /** Answer the run waiting for a person. */
  answer(req: AnswerRequest): Promise<AnswerReport>;
  /**
   * Start a run again from a state of an earlier one: the new run, started. Nothing is printed;
   * the caller follows it (`follow`) or leaves it running.
   */
  rerun(req: RerunRequest): Promise<RerunStarted>;
  /**
   * Continue a stopped or failed run, or give an open one its worker: the run that goes on, and
   * whether it is a new run or the open one (`kind`). Nothing is printed; what was done on the
   * way is told `req.onNote`. The caller follows it (`follow`) or leaves it running.
   */
  resume(req: ResumeRequest): Promise<ResumedRun>;
}

/** The run an update goes to: a run id or a loop name, from a project's directory. */
interface RunTarget {
  cwd: string;
  target: string;
  /** `user@host` (defaults to this process's). */
  by?: string;
}

interface AnswerRequest {
  cwd: string;
  target: string;
  reply: HumanReply;
  /** The project whose runs a loop name means. */
  project: ProjectScope;
  /** Told the run found before it is asked (the command brings its checkout's worker back). */
  onFound?: (run: RunSummary) => void;
}

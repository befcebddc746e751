/**
 * What a command (and `ll-loop ui`'s server, and the worker's socket) does to runs, behind one
 * typed interface, with two implementations chosen in one place ({@link runsService}): `direct`,
 * on the Temporal SDK with a session of the caller's own (direct.ts), and through the checkout's
 * worker, which already holds one (via-worker.ts: the command then loads no Temporal SDK). The
 * worker's handlers make the same reports as `direct` (client/transport/requests.ts).
 *
 * The worker serves the reads; the writes (stop, pause, unpause, steer, answer, rerun, resume)
 * are `direct`'s in both. Light on purpose: a command loads this before it knows whether it
 * needs the SDK.
 */
import type { StatusReport } from '../runs/status-report.js';
import type { LogsQuery, LogsReport } from '../follow/logs-report.js';
import type { HistoryQuery, HistoryReport } from '../follow/history-report.js';
import type { RunningListing } from '../hosting/running-listings.js';
import type { WaitingRun } from '../human/find-waiting.js';
import type { ProjectScope } from '../runs/project-scope.js';
import type { LockQueueReport } from '../scopes/scope-queues.js';
import type { StopReport, StopRequest } from '../control/stop-run.js';
import type { ControlOutcome, ControlRequest } from '../control/run-control.js';
import type { RerunInBackground, RerunRequest } from '../control/rerun.js';
import type { ResumedRun, ResumeRequest } from '../resume/resume-run.js';
import type { AnswerReport } from '../human/answer-run.js';
import type { HumanReply } from '../../fsm/human.js';
import type { RunSummary } from '../runs/find-runs.js';
import type { Session } from '../temporal/session.js';
import { mayAskWorker } from '../worker-ask.js';
import { viaWorker } from './via-worker.js';

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

  /** Stop the run: cancel it (its action killed, its outcome recorded), or terminate it with `force`. */
  stop(req: StopRequest): Promise<StopReport>;
  /** Pause, unpause or steer the run (its update taken); throws the run's refusal. */
  pause(target: RunTarget): Promise<ControlOutcome>;
  unpause(target: RunTarget): Promise<ControlOutcome>;
  steer(target: RunTarget, steer: Omit<Extract<ControlRequest, { kind: 'steer' }>, 'kind'>): Promise<ControlOutcome>;
  /** Answer the run waiting for a person. */
  answer(req: AnswerRequest): Promise<AnswerReport>;
  /** Start a run again from a state of an earlier one, in the background. */
  rerun(req: RerunRequest): Promise<RerunInBackground>;
  /** Continue a stopped or failed run, in the background. */
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

/**
 * The runs service a command uses, chosen here: `direct` on an external server or with
 * `LL_START_SOCKET=0` (client/worker-ask.ts mayAskWorker), else through the checkout's worker,
 * which delegates to `direct` whenever the worker cannot serve (none of this build, a refusal).
 */
export function runsService(env: NodeJS.ProcessEnv = process.env): RunsService {
  const direct = deferred(() => directRunsService());
  return mayAskWorker(env) ? viaWorker(env, direct) : direct;
}

/** A runs service whose implementation is loaded by its first operation (the SDK only when needed). */
function deferred(load: () => Promise<RunsService>): RunsService {
  return {
    status: async (cwd, target) => (await load()).status(cwd, target),
    logs: async (query) => (await load()).logs(query),
    history: async (query) => (await load()).history(query),
    running: async (cwd, allProjects) => (await load()).running(cwd, allProjects),
    inbox: async (query) => (await load()).inbox(query),
    queues: async (cwd) => (await load()).queues(cwd),
    stop: async (req) => (await load()).stop(req),
    pause: async (target) => (await load()).pause(target),
    unpause: async (target) => (await load()).unpause(target),
    steer: async (target, steer) => (await load()).steer(target, steer),
    answer: async (req) => (await load()).answer(req),
    rerun: async (req) => (await load()).rerun(req),
    resume: async (req) => (await load()).resume(req),
  };
}

/**
 * The implementation on the Temporal SDK, loaded when first needed: on `session` when given (a
 * long-lived caller's, `ll-loop ui`'s), else each operation on a session of its own.
 */
async function directRunsService(session?: Session): Promise<RunsService> {
  return (await import('./direct.js')).directRuns(session);
}

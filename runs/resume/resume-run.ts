/**
 * Resuming a run that did not reach its end (the runs service's `resume`), printing nothing:
 * - A closed run that stopped before a terminal state (cancelled, timed out, error, limits, or
 *   terminated/failed in Temporal): its last snapshot (in its result, else read back by a local
 *   replay of its history) is continued by a NEW run, `<id>-r<n>`, from the state it was in with
 *   its captured values (memo `resumed_from`). The id is fixed per attempt, so two concurrent
 *   resumes cannot both start.
 * - An open run: its checkout's worker runs it (started if it was gone); one paused on a handoff
 *   (`on_handoff: pause`) is told to continue (its resumeHandoff update); a run of 0.2.0 on its
 *   own queue is handed back for the caller to serve (serve-here.ts).
 * The `resume` command then follows the run it gets exactly like `ll-loop run` (progress, exit code).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Snapshot } from '../../fsm/run/snapshot.js';
import type { Diagnostic } from '../../fsm/diagnostics.js';
import { installQuietRuntime } from '../../worker/create-worker.js';
import type { RunStateFile, ScopeLockRequest } from '../../workflows/definitions.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { runInfo } from '../find/run-info.js';
import { parseContextArgs } from '../../loader/load.js';
import type { RunInfo } from '../../reporters/reporter.js';
import { definitionForResume } from './resume-definition.js';
import { endedItems } from './fanout-progress.js';
import { checkProviderKeys } from '../start/provider-keys.js';
import { chooseRun, type ResumeChoice } from './resume-target.js';
import { continueHandoff } from './handoff.js';
import { projectScope } from '../find/find-runs.js';
import {
  AlreadyBeingResumedError,
  memoOf,
  nextResumeId,
  requireRunDirectory,
  snapshotOfClosedRun,
  startInputOf,
} from './resumable.js';
import { openSession, type Session } from '../../temporal/session.js';
import { moveOntoThisRelease, readOpenRun } from './upgrade.js';
import { isPerRunQueue, searchAttributesAvailable, startLoopRun } from '../start/start-run.js';
import { ScopeBusyError } from '../scopes/scope-lock.js';
import { lockWithQueueChoice } from '../scopes/queue-choice.js';
import { scopesSettled } from '../scopes/scopes-settled.js';
import { commandLineDataKeys } from '../../fsm/definition/parameters.js';
import { CHECKOUT_QUEUE_PREFIX, checkoutAt } from '../../host/checkout.js';
import { checkoutRootOf, checkoutWorkerForStart, ensureCheckoutWorker } from '../workers/checkout-worker.js';

/** What to resume and how: the run `target` names, the context and limits a stopped run's continuation gets. */
export interface ResumeRequest {
  cwd: string;
  target: string;
  context: string[];
  /** `--context-allow-unknown`: hand the loop `--context` keys it does not use. */
  allowUnknownContext?: boolean;
  maxIterations?: number;
  /** `--queue` / `--queue-timeout`: a stopped run's continuation waits for its scopes (runs/scopes/queue-choice.ts). */
  queue?: true;
  queueTimeoutS?: number;
  /**
   * The caller follows the run it gets (`resume` without `--background`): a stopped run's
   * continuation is not first waited on for its scopes (the follow shows them), and an open run
   * of ll-loop 0.2.0 on its own task queue is handed back for the caller to serve
   * (`{ kind: 'unserved' }`: serve-here.ts). Without it, such a run is refused.
   */
  follows?: boolean;
  /** Told what was found or done on the way, as it happens (the `resume` command says it). */
  onNote?: (note: ResumeNote) => void;
  /** Just before a stopped run's continuation is started (the command's Ctrl-C handling starts here). */
  onStarting?: () => void;
  /** The continuation exists; `cancel` cancels it, until this call returns. */
  onStarted?: (cancel: () => Promise<unknown>) => void;
}

/** What a resume found or did on the way, before its outcome. */
export type ResumeNote =
  /** The run is open: `--context`, `--max-iterations` and `--queue` do not apply. */
  | { kind: 'open-ignores-flags'; id: string }
  /** This release could not replay the open run: it was moved onto it. */
  | { kind: 'moved'; id: string; reason: string; state: string }
  /** The open run waited on a handoff: it was told to continue, `state` runs again. */
  | { kind: 'handed-off'; id: string; state: string }
  /** The loop file is gone: the continuation has the definition the run started with. */
  | { kind: 'file-gone'; id: string; file: string | undefined }
  /** The loop file is no longer valid (a `CliError` follows). */
  | { kind: 'invalid-file'; diagnostics: Diagnostic[] };

/** What resuming made of the run: where it goes on, and what a follower needs to show it. */
export type ResumedRun =
  /** A closed run that stopped is continued by a new run, `id` (`<resumedFrom>-r<n>`). */
  | {
      kind: 'resumed';
      id: string;
      resumedFrom: string;
      /** How the stopped run ended, in the state and pass it was in. */
      reason: string;
      state: string;
      iteration: number;
      maxIterations: number;
      info: RunInfo;
      /** The scopes the new run asks for (with `wait`: its follower notes that it waits, as run's does). */
      lock?: ScopeLockRequest;
    }
  /** An open run of a checkout: its worker (`pid` on `host`, started if it was gone) serves it. */
  | { kind: 'following'; id: string; worker: { pid: number; host: string }; maxIterations: number; info: RunInfo }
  /**
   * An open run of ll-loop 0.2.0 on its own task queue, that nothing serves (only with
   * `follows`): the caller serves it (serve-here.ts) while it follows it.
   */
  | {
      kind: 'unserved';
      id: string;
      taskQueue: string;
      /** Where it was, when its state file says. */
      where: RunStateFile | undefined;
      maxIterations: number | undefined;
      info: RunInfo;
    };

/** An open run on a shared queue belongs to that queue's worker pool. */
export class SharedQueueRunError extends CliError {
  override readonly name = 'SharedQueueRunError';
  constructor(id: string, taskQueue: string) {
    super(
      `run ${id} is open on the shared task queue ${taskQueue}; it runs when a worker polls that queue`,
      `start one: ll-loop worker --task-queue ${taskQueue}`,
      EXIT.usage,
    );
  }
}

/**
 * Resume a run, printing nothing: the run that goes on (a stopped run's continuation, started;
 * an open run, given its worker), or, with `follows`, an open run of 0.2.0 for the caller to
 * serve. Throws what the command reports (a run not found, a shared queue, a busy scope…).
 */
export async function resume(req: ResumeRequest): Promise<ResumedRun> {
  const cliContext = parseContextArgs(req.context);
  installQuietRuntime();
  const session = await openSession(req.cwd);
  try {
    const choice = await chooseRun(session.client, req.target, projectScope(req.cwd));
    const cwd = requireRunDirectory(choice.id, choice.description);
    if (choice.kind === 'open') return await resumeOpen(session, choice, cwd, cliContext, req);
    return await continueStopped(session, choice, cwd, cliContext, req);
  } finally {
    await session.close();
  }
}

/** An open run: given its checkout's worker, or handed back to be served here (0.2.0). */
async function resumeOpen(
  session: Session,
  choice: ResumeChoice,
  cwd: string,
  cliContext: Record<string, string>,
  req: ResumeRequest,
): Promise<ResumedRun> {
  const servedByCheckout = choice.description.taskQueue.startsWith(CHECKOUT_QUEUE_PREFIX);
  if (!servedByCheckout && !isPerRunQueue(choice.description.taskQueue))
    throw new SharedQueueRunError(choice.id, choice.description.taskQueue);
  if (Object.keys(cliContext).length || req.maxIterations !== undefined || req.queue)
    req.onNote?.({ kind: 'open-ignores-flags', id: choice.id });
  // A run this release cannot replay would wedge on its first workflow task here: move it.
  const reading = await readOpenRun(session.client, choice.id, choice.description, cwd);
  if (!reading.replays) {
    await moveOntoThisRelease(session.client, choice.id, choice.description, reading.plan);
    req.onNote?.({
      kind: 'moved',
      id: choice.id,
      reason: reading.plan.upgrade.reason,
      state: reading.plan.snapshot.current,
    });
  }
  const info = runInfo(session.endpoint, cwd, choice.id);
  if (servedByCheckout) {
    const worker = await ensureCheckoutWorker(cwd, session.endpoint.address);
    // Waiting on a handoff (`on_handoff: pause`): this is the command that continues it.
    const handedOff = await continueHandoff(session.client, choice.id);
    if (handedOff) req.onNote?.({ kind: 'handed-off', id: choice.id, state: handedOff.state });
    const input = await startInputOf(session.client, choice.id);
    const maxIterations = input?.definition.max_iterations ?? 0;
    return { kind: 'following', id: choice.id, worker: { pid: worker.pid, host: worker.host }, maxIterations, info };
  }
  if (!req.follows) {
    throw new CliError(
      `${choice.id} is a run of ll-loop 0.2.0 on its own task queue: this process must serve it, so it cannot resume in the background`,
      `ll-loop resume ${choice.id} (without --background), and keep it open until the run ends`,
      EXIT.usage,
    );
  }
  const input = await startInputOf(session.client, choice.id);
  // The caller's worker serves the run: its actions see this environment.
  if (input !== undefined) checkProviderKeys(input.definition, process.env, 'resume');
  return {
    kind: 'unserved',
    id: choice.id,
    taskQueue: choice.description.taskQueue,
    where: reading.replays ? reading.state : undefined,
    maxIterations: input?.definition.max_iterations,
    info,
  };
}

/** A closed, stopped run: a new run `<id>-r<n>` continues from its snapshot. */
async function continueStopped(
  session: Session,
  run: ResumeChoice & { kind: 'stopped' },
  cwd: string,
  context: Record<string, string>,
  req: ResumeRequest,
): Promise<ResumedRun> {
  const { client, connection, endpoint } = session;
  const newId = await nextResumeId(client, run.id);
  const memo = memoOf(run.description);
  const previous = await startInputOf(client, run.id);
  const { definition, file, fromFile } = definitionForResume({
    runId: run.id,
    file: memo.file,
    previous,
    context,
    refuseUnusedContext: req.allowUnknownContext !== true,
    onInvalid: (diagnostics) => req.onNote?.({ kind: 'invalid-file', diagnostics }),
    ...(req.maxIterations === undefined ? {} : { maxIterations: req.maxIterations }),
  });
  if (!fromFile) req.onNote?.({ kind: 'file-gone', id: run.id, file: memo.file });
  // The resumed run's worker gets this command's environment, as for `run`.
  checkProviderKeys(definition, process.env, 'resume');
  const snapshot: Snapshot = await snapshotOfClosedRun(client, run.id);
  // Stopped mid-fan-out: the items that had ended are not run again.
  const fanout = await endedItems(client, run.id, definition, snapshot, previous);
  const taskQueue = checkoutAt(checkoutRootOf(cwd)).queue;
  // Waited for first only when it replaces a worker of another build (checkoutWorkerForStart).
  const { ready: workerReady } = await checkoutWorkerForStart(cwd, endpoint.address);
  const lock = previous?.lock ? lockWithQueueChoice(previous.lock, req) : undefined;
  req.onStarting?.();
  const searchAttributes = await searchAttributesAvailable(endpoint, connection);
  const { handle } = await startLoopRun({
    client,
    definition,
    file,
    cwd,
    taskQueue,
    searchAttributes,
    started: new Date(),
    workflowId: newId,
    continueFrom: { runId: run.id, snapshot, ...(fanout ? { fanout } : {}) },
    memo: { resumed_from: run.id },
    // `--context` given to resume is data like run's (the stopped run's own keys are in its snapshot).
    dataContext: commandLineDataKeys(definition, context),
    // The new run asks for the scopes the stopped one had, as it asked for them (or waiting: --queue).
    ...(lock ? { lock } : {}),
  }).catch((err: unknown) => {
    // Another resume of this run won the race: its id is taken, or (seen first) it holds the scopes.
    const wonByOther =
      err instanceof WorkflowExecutionAlreadyStartedError ||
      (err instanceof ScopeBusyError && err.details.blockers.some((b) => b.run === newId));
    throw wonByOther ? new AlreadyBeingResumedError(run.id, newId) : err;
  });
  req.onStarted?.(() => handle.cancel());
  await workerReady.catch(async (err: unknown) => {
    await handle.terminate(`ll-loop could not start a worker for it: ${(err as Error).message}`).catch(() => undefined);
    throw err;
  });
  // Nobody follows it: a denial of its scopes is reported here (exit 8), not left for status.
  if (!req.follows) await scopesSettled(client, newId, lock);
  return {
    kind: 'resumed',
    id: newId,
    resumedFrom: run.id,
    reason: run.reason,
    state: snapshot.current,
    iteration: snapshot.iteration,
    maxIterations: definition.max_iterations,
    info: runInfo(endpoint, cwd, newId),
    ...(lock ? { lock } : {}),
  };
}

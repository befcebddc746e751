/**
 * `ll-loop resume <name|run-id>`: carry on with a run that did not reach its end.
 * - A closed run that stopped before a terminal state (cancelled, timed out, error, limits, or
 *   terminated/failed in Temporal): its last snapshot (in its result, else read back by a local
 *   replay of its history) is continued by a NEW run,
 *   `<id>-r<n>`, continues from the state it was in with its captured values (memo
 *   `resumed_from`). The id is fixed per attempt, so two concurrent resumes cannot both start.
 * - An open run: its checkout's worker runs it (started if it was gone), this process follows it;
 *   one paused on a handoff (`on_handoff: pause`) is told to continue (its resumeHandoff update);
 *   a run of 0.2.0 on its own queue is served by this process.
 * Either way the run is then followed here exactly like `ll-loop run` (progress, exit code).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Snapshot } from '../../fsm/run/snapshot.js';
import { installQuietRuntime } from '../../worker/create-worker.js';
import { hostRunWorker } from '../workers/run-worker.js';
import type { RunStateFile } from '../../workflows/definitions.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { createReporter, followRun, runInfo } from '../follow/follow-run.js';
import { armInterrupt, interruptible } from '../follow/interrupt.js';
import { parseContextArgs } from '../../loader/load.js';
import type { Reporter } from '../../reporters/reporter.js';
import type { Detail } from '../../reporters/human.js';
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
}

export interface ResumeOptions extends ResumeRequest {
  /** `--background`: start (or hand over) the resumed run and return at once, like `run --background`. */
  background?: boolean;
  json: boolean;
  /** Colour in the progress display. */
  colour?: boolean;
  /** `--verbose` / `--quiet`: how much of the progress display, as for `run`. */
  detail?: Detail;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** A run resumed in the background: the run that goes on, and what `resume --background` says of it. */
export interface ResumedRun {
  /** The stopped run's continuation (`<id>-r<n>`), or the open run itself. */
  id: string;
  /** The stopped run it continues; undefined for an open run. */
  resumedFrom: string | undefined;
  line: string;
}

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

/** Resume a run; returns the exit code of the run it ends up following (0 with --background). */
export async function resumeCommand(opts: ResumeOptions): Promise<number> {
  const resumed = await resume(opts);
  if (typeof resumed === 'number') return resumed;
  printResumedInBackground(opts, resumed);
  return EXIT.ok;
}

/**
 * Resume a run in the background, as `resume --background --json` does, printing nothing: the run
 * that goes on. Throws what the command would report (the same errors).
 */
export async function resumeInBackground(req: ResumeRequest): Promise<ResumedRun> {
  const quiet = (): void => undefined;
  const resumed = await resume({ ...req, background: true, json: true, out: quiet, err: quiet });
  // With `background`, every path returns the run or throws: a number here is a defect of resume().
  if (typeof resumed === 'number') throw new Error(`resume in the background followed its run (exit ${resumed})`);
  return resumed;
}

/** Resume a run: the exit code of the run it followed, or the run it left running (`background`). */
async function resume(opts: ResumeOptions): Promise<number | ResumedRun> {
  const cliContext = parseContextArgs(opts.context);
  installQuietRuntime();
  const session = await openSession(opts.cwd);
  try {
    const choice = await chooseRun(session.client, opts.target, projectScope(opts.cwd));
    const cwd = requireRunDirectory(choice.id, choice.description);
    if (choice.kind === 'open') {
      const servedByCheckout = choice.description.taskQueue.startsWith(CHECKOUT_QUEUE_PREFIX);
      if (!servedByCheckout && !isPerRunQueue(choice.description.taskQueue))
        throw new SharedQueueRunError(choice.id, choice.description.taskQueue);
      if (Object.keys(cliContext).length || opts.maxIterations !== undefined || opts.queue) {
        opts.err(
          `note: ${choice.id} is still open; --context, --max-iterations and --queue apply only when resuming a stopped run\n`,
        );
      }
      // A run this release cannot replay would wedge on its first workflow task here: move it.
      const reading = await readOpenRun(session.client, choice.id, choice.description, cwd);
      if (!reading.replays) {
        await moveOntoThisRelease(session.client, choice.id, choice.description, reading.plan);
        if (!opts.json)
          opts.out(
            `moved ${choice.id} onto this ll-loop (${reading.plan.upgrade.reason}); it continues in state ${reading.plan.snapshot.current}\n`,
          );
      }
      if (servedByCheckout) return await followServed(session, choice, cwd, opts);
      if (opts.background) {
        throw new CliError(
          `${choice.id} is a run of ll-loop 0.2.0 on its own task queue: this process must serve it, so it cannot resume in the background`,
          `ll-loop resume ${choice.id} (without --background), and keep it open until the run ends`,
          EXIT.usage,
        );
      }
      // A run of ll-loop 0.2.0, on its own queue: this process serves it.
      return await attach(session, choice, cwd, opts, reading.replays ? reading.state : undefined);
    }
    return await continueStopped(session, choice, cwd, cliContext, opts);
  } finally {
    await session.close();
  }
}

/** An open run without a worker: poll its own task queue here until it closes. */
async function attach(
  session: Session,
  run: ResumeChoice,
  cwd: string,
  opts: ResumeOptions,
  where?: RunStateFile,
): Promise<number> {
  const handle = session.client.workflow.getHandle(run.id);
  const input = await startInputOf(session.client, run.id);
  // This process's worker serves the run: its actions see this environment.
  if (input !== undefined) checkProviderKeys(input.definition, process.env, 'resume');
  await forgetDeadWorker(session, run.id);
  const { worker, close } = await hostRunWorker(session, run.description.taskQueue);
  // The display replays the run's events so far, then follows it live.
  if (!opts.json) {
    opts.out(`resuming ${run.id}: it is still open but nothing was running it; its worker runs here now\n`);
    if (where && where.phase !== 'done')
      opts.out(
        `in state ${where.current_state} (pass ${where.iteration}/${input?.definition.max_iterations ?? '?'}, ${phaseText(where.phase)})\n`,
      );
  }
  const { interrupt, stop } = interruptible(opts.err);
  armInterrupt(interrupt, () => handle.cancel());
  try {
    return await followRun({
      via: session.client,
      workflowId: run.id,
      worker,
      reporter: createReporter(opts.json, opts.out, input?.definition.max_iterations ?? 0, opts.colour, opts.detail),
      info: runInfo(session.endpoint, cwd, run.id),
      err: opts.err,
    });
  } finally {
    stop();
    await close();
  }
}

/** An open run of a checkout: its worker (started now if it was gone) runs it; follow it here. */
async function followServed(
  session: Session,
  run: ResumeChoice,
  cwd: string,
  opts: ResumeOptions,
): Promise<number | ResumedRun> {
  const worker = await ensureCheckoutWorker(cwd, session.endpoint.address);
  // Waiting on a handoff (`on_handoff: pause`): this is the command that continues it.
  const handedOff = await continueHandoff(session.client, run.id);
  if (handedOff && !opts.json)
    opts.out(`${run.id} was paused on a handoff: state ${handedOff.state} runs again, continuing from it\n`);
  if (opts.background)
    return {
      id: run.id,
      resumedFrom: undefined,
      line: `${run.id} is still open: the worker pid ${worker.pid} on ${worker.host} serves it`,
    };
  const input = await startInputOf(session.client, run.id);
  if (!opts.json)
    opts.out(`${run.id} is still open: the worker pid ${worker.pid} on ${worker.host} serves it; following it\n`);
  const { interrupt, stop } = interruptible(opts.err);
  armInterrupt(interrupt, () => session.client.workflow.getHandle(run.id).cancel());
  try {
    return await followRun({
      via: session.client,
      workflowId: run.id,
      reporter: createReporter(opts.json, opts.out, input?.definition.max_iterations ?? 0, opts.colour, opts.detail),
      info: runInfo(session.endpoint, cwd, run.id),
      err: opts.err,
    });
  } finally {
    stop();
  }
}

/**
 * The dead worker's sticky queue would hold the run's next workflow task (and queries) until
 * Temporal gives up on it; resetting stickiness sends them to the run's task queue at once.
 */
async function forgetDeadWorker(session: Session, id: string): Promise<void> {
  await session.client.workflowService
    .resetStickyTaskQueue({ namespace: session.endpoint.namespace, execution: { workflowId: id } })
    .catch(() => undefined);
}

/** A closed, stopped run: a new run `<id>-r<n>` continues from its snapshot. */
async function continueStopped(
  session: Session,
  run: ResumeChoice & { kind: 'stopped' },
  cwd: string,
  context: Record<string, string>,
  opts: ResumeOptions,
): Promise<number | ResumedRun> {
  const { client, connection, endpoint } = session;
  const newId = await nextResumeId(client, run.id);
  const memo = memoOf(run.description);
  const previous = await startInputOf(client, run.id);
  const { definition, file, fromFile } = definitionForResume({
    runId: run.id,
    file: memo.file,
    previous,
    context,
    refuseUnusedContext: opts.allowUnknownContext !== true,
    json: opts.json,
    out: opts.out,
    err: opts.err,
    ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
  });
  if (!fromFile)
    opts.err(
      `note: the loop file ${memo.file ?? '(none recorded)'} is gone; resuming with the definition ${run.id} started with\n`,
    );
  // The resumed run's worker gets this command's environment, as for `run`.
  checkProviderKeys(definition, process.env, 'resume');
  const snapshot: Snapshot = await snapshotOfClosedRun(client, run.id);
  // Stopped mid-fan-out: the items that had ended are not run again.
  const fanout = await endedItems(client, run.id, definition, snapshot, previous);
  const taskQueue = checkoutAt(checkoutRootOf(cwd)).queue;
  // Waited for first only when it replaces a worker of another build (checkoutWorkerForStart).
  const { ready: workerReady } = await checkoutWorkerForStart(cwd, endpoint.address);
  const lock = previous?.lock ? lockWithQueueChoice(previous.lock, opts) : undefined;
  const { interrupt, stop } = interruptible(opts.err);
  try {
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
    armInterrupt(interrupt, () => handle.cancel());
    await workerReady.catch(async (err: unknown) => {
      await handle
        .terminate(`ll-loop could not start a worker for it: ${(err as Error).message}`)
        .catch(() => undefined);
      throw err;
    });
    const line = `resuming ${run.id} (${run.reason} in state ${snapshot.current}, pass ${snapshot.iteration}/${definition.max_iterations}) as ${newId}`;
    if (opts.background) {
      // Nobody follows it: a denial of its scopes is reported here (exit 8), not left for status.
      await scopesSettled(client, newId, lock);
      return { id: newId, resumedFrom: run.id, line: `${line}, in the background` };
    }
    if (!opts.json) opts.out(`${line}\n`);
    return await followRun({
      via: client,
      workflowId: newId,
      reporter: opts.json
        ? resumedJsonReporter(opts.out, run.id)
        : createReporter(false, opts.out, definition.max_iterations, opts.colour, opts.detail),
      info: runInfo(endpoint, cwd, newId),
      err: opts.err,
    });
  } finally {
    stop();
  }
}

/** `--background`: what was started (or is still running) and how to follow or stop it. */
function printResumedInBackground(opts: ResumeOptions, r: ResumedRun): void {
  if (opts.json) {
    opts.out(
      `${JSON.stringify({ instance_id: r.id, ...(r.resumedFrom === undefined ? {} : { resumed_from: r.resumedFrom }) })}\n`,
    );
    return;
  }
  opts.out(`${r.line}\n  follow: ll-loop status ${r.id} --follow\n  stop:   ll-loop stop ${r.id}\n`);
}

/** `--json`: the result as `run --json` prints it, plus `resumed_from`. */
function resumedJsonReporter(out: (t: string) => void, resumedFrom: string): Reporter {
  return {
    onEvent: () => undefined,
    onResult(result, info) {
      out(
        `${JSON.stringify({ instance_id: info.instanceId, resumed_from: resumedFrom, ...result, ...(info.eventsFile ? { events_file: info.eventsFile } : {}) }, null, 2)}\n`,
      );
    },
  };
}

/** What an open run was doing when its worker went away. */
function phaseText(phase: RunStateFile['phase']): string {
  switch (phase) {
    case 'action':
      return 'its action was in flight: it runs again once Temporal notices the old worker is gone, within 30 s';
    case 'llm':
      return 'its LLM evaluation was in flight: it runs again once Temporal notices the old worker is gone, within 30 s';
    default:
      return phase.replace('_', ' ');
  }
}

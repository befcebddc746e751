/**
 * Rerunning a run (the runs service's `rerun`; `ll-loop rerun <run> --from STATE[#N] [--context K=V]…`
 * prints and follows what it returns), printing nothing: a NEW run `<run>-f<n>`
 * starts from the snapshot the old run had when it entered the N-th visit of STATE (fork-point.ts),
 * with the context values set, under the definition the old run started with. The old run is not
 * touched (it may even be open). The new run records `forked_from: <run>@<event>` in its memo and
 * its first event (`loop_fork`); `history` shows the lineage both ways (lineage.ts).
 */
import { contextTypeProblems } from '../../fsm/definition/parameters.js';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { closest } from '../../fsm/suggest.js';
import { installQuietRuntime } from '../../worker/create-worker.js';
import { parseContextArgs } from '../../loader/load.js';
import { checkoutAt } from '../../host/checkout.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { runInfo } from '../find/run-info.js';
import type { RunInfo } from '../../reporters/reporter.js';
import { checkoutRootOf, checkoutWorkerForStart } from '../workers/checkout-worker.js';
import { projectScope } from '../find/find-runs.js';
import { resolveRun } from '../find/run-target.js';
import { memoOf, requireRunDirectory, startInputOf } from '../resume/resumable.js';
import { checkProviderKeys } from '../start/provider-keys.js';
import { searchAttributesAvailable, startLoopRun } from '../start/start-run.js';
import { openSession } from '../../temporal/session.js';
import { forkPoint, HistoryGoneError, parseFrom } from './fork-point.js';
import { lockWithQueueChoice } from '../scopes/queue-choice.js';
import { scopesSettled } from '../scopes/scopes-settled.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';

/** What to rerun: the run `target` names, from which visit of which state, with which context values. */
export interface RerunRequest {
  cwd: string;
  target: string;
  /** `STATE` or `STATE#N`. */
  from: string;
  context: string[];
  /** `--queue` / `--queue-timeout`: the new run waits for its scopes (client/commands/queue-flags.ts). */
  queue?: true;
  queueTimeoutS?: number;
  /** The caller follows the new run: it is not first waited on for its scopes (the follow shows them). */
  follows?: boolean;
  /** Just before the new run is started (the command's Ctrl-C handling starts here). */
  onStarting?: () => void;
  /** The new run exists; `cancel` cancels it, until this call returns. */
  onStarted?: (cancel: () => Promise<unknown>) => void;
}

/** The first free `<id>-f<n>`. */
async function nextForkId(client: Client, id: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const candidate = `${id}-f${n}`;
    const taken = await client.workflow
      .getHandle(candidate)
      .describe()
      .then(
        () => true,
        (err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return false;
          throw err;
        },
      );
    if (!taken) return candidate;
  }
}

/** A rerun started: the new run, where it was forked, and what a follower needs to show it. */
export interface RerunStarted {
  id: string;
  /** The run it was forked from. */
  runId: string;
  /** `<run>@<event>`: the run and the event it was forked at. */
  forkedFrom: string;
  /** The state it starts from, which of its visits, of how many, and that visit's event. */
  state: string;
  visit: number;
  visits: number;
  event: number;
  maxIterations: number;
  info: RunInfo;
  /** The scopes the new run asks for (with `wait`: its follower notes that it waits, as run's does). */
  lock?: ScopeLockRequest;
}

/**
 * Rerun, printing nothing: the new run, started (and, unless the caller `follows` it, settled on
 * its scopes). Throws what the command reports (no such state, an unknown context key…).
 */
export async function rerun(opts: RerunRequest): Promise<RerunStarted> {
  const target = parseFrom(opts.from);
  const edits = parseContextArgs(opts.context);
  installQuietRuntime();
  const project = projectScope(opts.cwd);
  const session = await openSession(opts.cwd);
  try {
    const { client, connection, endpoint } = session;
    const run = await resolveRun(client, opts.target, { latest: true, project });
    const description = await client.workflow.getHandle(run.id).describe();
    const cwd = requireRunDirectory(run.id, description);
    const previous = await startInputOf(client, run.id).catch(() => undefined);
    if (!previous) throw new HistoryGoneError(run.id, 'its history is gone (no start input)');
    const definition = previous.definition;
    const keys = Object.keys(definition.context ?? {});
    for (const key of Object.keys(edits)) {
      if (keys.includes(key)) continue;
      const near = closest(key, keys);
      throw new UsageError(
        `loop "${definition.name}" has no context key "${key}"${near ? ` (did you mean "${near}"?)` : ''}`,
        `--context only keys the loop declares: ${keys.join(', ') || '(none)'}`,
      );
    }
    const [typed] = contextTypeProblems(definition, edits);
    if (typed) throw new UsageError(`--context: ${typed.message}`, typed.fix);
    const point = await forkPoint(client, run.id, target, Object.keys(definition.states));
    checkProviderKeys(definition, process.env, 'resume');
    const newId = await nextForkId(client, run.id);
    const forkedFrom = `${run.id}@${point.event}`;
    // The checkout's worker runs the new run, as for `resume`.
    const taskQueue = checkoutAt(checkoutRootOf(cwd)).queue;
    // Waited for first only when it replaces a worker of another build (checkoutWorkerForStart).
    const { ready: workerReady } = await checkoutWorkerForStart(cwd, endpoint.address);
    const lock = previous.lock ? lockWithQueueChoice(previous.lock, opts) : undefined;
    opts.onStarting?.();
    const { handle } = await startLoopRun({
      client,
      definition,
      file: memoOf(description).file ?? '',
      cwd,
      taskQueue,
      searchAttributes: await searchAttributesAvailable(endpoint, connection),
      started: new Date(),
      workflowId: newId,
      continueFrom: {
        runId: run.id,
        snapshot: point.snapshot,
        fork: { event: point.event, ...(Object.keys(edits).length ? { context: edits } : {}) },
      },
      memo: { forked_from: forkedFrom },
      ...(lock ? { lock } : {}),
    }).catch((err: unknown) => {
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new CliError(
          `another rerun of ${run.id} started as ${newId} at the same moment`,
          `follow it (ll-loop status ${newId} --follow) or run this again`,
          EXIT.usage,
        );
      throw err;
    });
    opts.onStarted?.(() => handle.cancel());
    await workerReady.catch(async (err: unknown) => {
      await handle
        .terminate(`ll-loop could not start a worker for it: ${(err as Error).message}`)
        .catch(() => undefined);
      throw err;
    });
    // Nobody follows it: a denial of its scopes is reported here (exit 8), not left for status.
    if (!opts.follows) await scopesSettled(client, newId, lock);
    return {
      id: newId,
      runId: run.id,
      forkedFrom,
      state: target.state,
      visit: point.visit,
      visits: point.visits,
      event: point.event,
      maxIterations: definition.max_iterations,
      info: runInfo(endpoint, cwd, newId),
      ...(lock ? { lock } : {}),
    };
  } finally {
    await session.close();
  }
}

/**
 * `ll-loop run` once its loop is loaded (run-loop.ts): connect (embedded dev server by default),
 * start the loop workflow on the queue of the checkout's worker (started on demand:
 * runs/workers/checkout-worker.ts) or of a `--task-queue` pool, with the code of the runs
 * service's start on the SDK (start-on.ts) — unless the checkout's worker already started it
 * (early-start.ts, the service's start through the worker) —, then follow it on the same
 * connection to its end and
 * exit with its outcome, or return at once with `--background`. The run never depends on this process:
 * closing the terminal leaves it going; Ctrl-C stops it. The progress shown is the run's event
 * stream (runs/follow/follow-run.ts).
 */
import type { Client, Connection } from '@temporalio/client';
import type { LoopDefinition } from '../../fsm/schema.js';
import { hostId } from '../../host/checkout.js';
import {
  clientFor,
  resolveEndpoint,
  resolveTemporalTarget,
  TemporalUnavailableError,
  type TemporalEndpoint,
} from '../../temporal/connection.js';
import type { loopWorkflow } from '../../workflows/loop-workflow.js';
import { noteWhileQueued } from '../follow/queue-note.js';
import { embeddedServerOptions } from '../../temporal/embedded.js';
import { CliError, InfrastructureError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { armInterrupt, type Interrupt } from '../follow/interrupt.js';
import { runInfo } from '../find/run-info.js';
import type { LoopHandle } from './start-run.js';
import { servedRun, startOn, type StartedOn } from './start-on.js';
import type { RunStart } from './run-start.js';
import { lockOptionsOf } from './run-options.js';
import type { RunOptions } from './run-options.js';
import type { PortableCheckout } from '../../workflows/run-options.js';
import type { StartedByWorker } from './start-through-worker.js';
import type { Reporter } from '../../reporters/reporter.js';
import { printBackgroundStart } from './background-start.js';

type Endpoint = TemporalEndpoint & { uiUrl?: string };

/** What run-loop.ts hands over: the loaded loop, and the run when the checkout's worker started it. */
export interface LoadedRun {
  definition: LoopDefinition;
  file: string;
  dataContext: string[];
  /** The command's environment as it was invoked (host/run-env.ts). */
  env: NodeJS.ProcessEnv;
  interruption: { interrupt: Interrupt } | undefined;
  startedByWorker: StartedByWorker | undefined;
}

/** The run the checkout's worker started, as `run` goes on with it on its own connection. */
function startedByItsWorker(client: Client, byWorker: StartedByWorker): StartedOn {
  const handle = client.workflow.getHandle<typeof loopWorkflow>(byWorker.instanceId, undefined, {
    firstExecutionRunId: byWorker.runId,
  }) as LoopHandle;
  return { ...byWorker, handle, worker: Promise.resolve(byWorker.worker) };
}

/** What `run` asks the start for (runs/start/run-start.ts). */
function startOf(opts: RunOptions, run: LoadedRun): RunStart {
  return {
    cwd: opts.cwd,
    definition: run.definition,
    file: run.file,
    env: run.env,
    dataContext: run.dataContext,
    started: new Date(),
    lock: lockOptionsOf(opts),
    ...(opts.place ? { place: opts.place } : {}),
    ...(opts.background ? { background: true } : {}),
    onNote: opts.err ?? ((t: string) => process.stderr.write(t)),
  };
}

/** Run a loaded loop (to its end, unless `--background`). Returns the process exit code. */
export async function runLoaded(opts: RunOptions, run: LoadedRun): Promise<number> {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  const { definition, interruption } = run;
  // One connection: the one that found the embedded server running, when it was.
  const { connection: handedOver, ...endpoint } = await connectOrExplain(opts.cwd);
  const { client, connection } = await clientFor({ ...endpoint, ...(handedOver ? { connection: handedOver } : {}) });
  try {
    const on = { client, connection, endpoint };
    const req = startOf(opts, run);
    const started = run.startedByWorker ? startedByItsWorker(client, run.startedByWorker) : await startOn(on, req);
    const { handle, instanceId, lock, place } = started;
    if (interruption) armInterrupt(interruption.interrupt, () => handle.cancel());
    noteWhileQueued(client, instanceId, lock, err);
    // Loaded only now, while the worker takes the run's first task: nothing before the start needs it.
    const following = opts.background ? undefined : loadFollowing();
    following?.catch(() => undefined);
    const { worker, taskQueue, portable } = await servedRun(on, started, req);
    if (opts.background) {
      printBackgroundStart(out, opts.json, {
        instanceId,
        taskQueue,
        worker,
        cwd: opts.cwd,
        uiUrl: runInfo(endpoint, opts.cwd, instanceId).uiUrl,
      });
      return EXIT.ok;
    }
    const { createReporter, followRun } = await (following ?? loadFollowing());
    const asker = opts.ask && !opts.json ? await inlineQuestions(client, connection, instanceId, opts.cwd) : undefined;
    const shown = createReporter(opts.json, out, definition.max_iterations, opts.colour, opts.detail);
    const kept =
      place.kind === 'worktree' && portable ? await keptWorktreeReport(shown, opts.json, out, portable) : undefined;
    try {
      return await followRun({
        via: client,
        workflowId: instanceId,
        reporter: kept?.reporter ?? shown,
        info: runInfo(endpoint, opts.cwd, instanceId),
        err,
        localWriter: worker !== undefined && worker.host === hostId() && place.kind === 'checkout',
        ...(asker ? { onEvent: asker.onEvent } : {}),
      });
    } finally {
      asker?.close();
      await kept?.flush();
    }
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** A `--worktree` run's display, which tells at the end where a kept worktree is (kept-worktree-note.ts). */
async function keptWorktreeReport(
  shown: Reporter,
  json: boolean,
  out: (t: string) => void,
  portable: PortableCheckout,
) {
  const [{ reportKeptWorktree }, { keptWorktree }] = await Promise.all([
    import('./kept-worktree-note.js'),
    import('../../worker/portable.js'),
  ]);
  const { repository, branch, commit } = portable;
  return reportKeptWorktree(shown, { json, commit, out, look: () => keptWorktree({ repository, branch, commit }) });
}

/** The inline asker of human states' questions, on this process's terminal. */
async function inlineQuestions(client: Client, connection: Connection, runId: string, cwd: string) {
  const [{ inlineAsker }, { projectScope }] = await Promise.all([
    import('../human/inline-ask.js'),
    import('../find/find-runs.js'),
  ]);
  return inlineAsker({
    session: { client, connection },
    runId,
    project: projectScope(cwd),
    input: process.stdin,
    output: process.stdout,
  });
}

/**
 * What following a run needs, loaded after its start. The worker SDK (history replay) is not part
 * of it: the follower loads it only when it must replay (runs/follow/lazy-replayer.ts), and the
 * runtime it then installs has no signal handlers of its own (Ctrl-C is ours: follow/interrupt.ts).
 */
async function loadFollowing(): Promise<typeof import('../follow/follow-run.js')> {
  // What follow-run.ts loads to follow on this command's client, loaded beside it.
  const [following] = await Promise.all([import('../follow/follow-run.js'), import('../follow/follow-on.js')]);
  return following;
}

async function connectOrExplain(cwd: string): Promise<Endpoint & { connection?: Connection }> {
  try {
    return await resolveEndpoint(resolveTemporalTarget(), { ...embeddedServerOptions(cwd), keepConnection: true });
  } catch (err) {
    if (err instanceof CliError) throw err;
    if (err instanceof TemporalUnavailableError) throw new InfrastructureError(err.message);
    throw new InfrastructureError(`cannot start or reach Temporal: ${(err as Error).message}`, 'see docs/temporal.md');
  }
}

/**
 * `ll-loop run <name|path>`: start the loop — by the checkout's worker, handed the command line
 * (early-start.ts: by the bin before the CLI loaded when the worker was up, else here once it is
 * up; no Temporal SDK loaded before the start), or on this command's own connection where no
 * checkout worker serves the run (a pool, a task queue, an external server) or it refused — and
 * follow it: through the same worker when it started the run (run-followed.ts: no Temporal SDK at
 * all), else on the command's own connection (run-connected.ts, loaded after the start was handed
 * over). Nothing here may import the Temporal SDK: it is `run`'s path to the start.
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import type { RunPlace } from './run-place.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { interruptible } from '../follow/interrupt.js';
import { loadLoop, parseContextArgs } from '../../loader/load.js';
import { commandLineDataKeys } from '../../fsm/definition/parameters.js';
import { printPlan } from './dry-run.js';
import { printDiagnostics } from '../reporters/diagnostics.js';
import type { Detail } from '../reporters/human.js';
import { checkProviderKeys } from './provider-keys.js';
import { startedOf, type StartedByWorker } from './start-through-worker.js';
import { askArgvStart, type EarlyStart } from './early-start.js';
import type { WorkerArgvStartReply, WorkerStartRequest } from './worker-start-wire.js';
import { checkoutWorkerRoute, checkoutWorkerTarget } from '../worker-ask.js';
import { ensureCheckoutWorker } from '../hosting/checkout-worker.js';
import type { Diagnostic } from '../../fsm/diagnostics.js';
import { printBackgroundStart } from './background-start.js';
import { followableByWorker } from './run-follow-choice.js';
import type { LoadedRun } from './run-connected.js';

export interface RunOptions {
  cwd: string;
  target: string;
  maxIterations?: number;
  context: string[];
  /** `--context-allow-unknown`: hand the loop `--context` keys it does not use. */
  allowUnknownContext?: boolean;
  dryRun: boolean;
  noLlm: boolean;
  llmModel?: string;
  json: boolean;
  /** Start, hand the run to a worker outside this process, and return at once. */
  background?: boolean;
  /** Where the run goes (client/start/where-to-run.ts); default: the checkout's worker. */
  place?: RunPlace;
  /** `--queue`: wait in FIFO order for busy scopes (else a busy scope ends the run, exit 8). */
  queue?: boolean;
  /** `--queue-timeout`: give up waiting after this many seconds. */
  queueTimeoutS?: number;
  /** `--no-lock`: take no scope lock at all (dangerous: overlapping runs work at once). */
  noLock?: boolean;
  /** Ask human states' questions inline (stdin and stdout are a terminal; client/human/inline-ask.ts). */
  ask?: boolean;
  /** Colour in the progress display (stdout is a terminal that wants it). */
  colour?: boolean;
  /** `--verbose` / `--quiet`: how much of the progress display (client/reporters/human.ts). */
  detail?: Detail;
  out?: (text: string) => void;
  err?: (text: string) => void;
  /** The start the bin already asked the checkout's worker for (early-start.ts), if it did. */
  early?: EarlyStart;
  /** The command line as typed (`run …`) and where: what the checkout's worker is handed to start the run. */
  commandLine?: { argv: readonly string[]; invokedIn: string };
}

/** The loop `run` would start, or what is wrong with it (nothing printed). */
export function loadForRun(
  opts: RunOptions,
): { definition: LoopDefinition; file: string; dataContext: string[] } | { file: string; diagnostics: Diagnostic[] } {
  const context = parseContextArgs(opts.context);
  const overrides = {
    context,
    noLlm: opts.noLlm,
    requireParameters: true,
    refuseUnusedContext: opts.allowUnknownContext !== true,
    ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
    ...(opts.llmModel === undefined ? {} : { llmModel: opts.llmModel }),
  };
  const loaded = loadLoop(opts.target, opts.cwd, overrides);
  if (!loaded.definition) return { file: loaded.file, diagnostics: loaded.diagnostics };
  // Values from the command line are data in shell actions, not code (docs/decisions.md).
  return {
    definition: loaded.definition,
    file: loaded.file,
    dataContext: commandLineDataKeys(loaded.definition, context),
  };
}

function load(opts: RunOptions): { definition: LoopDefinition; file: string; dataContext: string[] } {
  const loaded = loadForRun(opts);
  if ('diagnostics' in loaded) {
    printDiagnostics(
      loaded.diagnostics,
      opts.json,
      opts.out ?? ((t) => process.stdout.write(t)),
      opts.err ?? ((t) => process.stderr.write(t)),
    );
    throw new CliError(
      `${loaded.file} is not a valid loop; nothing was run`,
      'fix the errors above, then run again',
      EXIT.usage,
    );
  }
  return loaded;
}

/** The scope lock `run`'s options ask for (a start through the worker names it so). */
export function lockOptionsOf(opts: RunOptions): WorkerStartRequest['lock'] {
  return {
    none: opts.noLock === true,
    wait: opts.queue === true,
    ...(opts.queueTimeoutS === undefined ? {} : { queue_timeout_s: opts.queueTimeoutS }),
  };
}

/** The run the checkout's worker started, with the loop as it loaded it. */
type StartedThere = { started: StartedByWorker; definition: LoopDefinition; file: string; dataContext: string[] };

/** A `--background` start the checkout's worker queued (it starts the run from its queue). */
type Queued = Extract<WorkerArgvStartReply, { kind: 'queued' }>;

/**
 * The run the checkout's worker started for its answer `reply`; undefined when it was not asked
 * or refused (the command then does it all). The worker's error is the command's.
 */
function startedBy(reply: WorkerArgvStartReply | undefined, worker: EarlyStart['worker']): StartedThere | undefined {
  if (reply === undefined || reply.kind === 'refused') return undefined;
  if (reply.kind === 'error') throw new CliError(reply.message, reply.fix, reply.exit_code);
  // Only a `--background` start is queued, and it is printed before asking here.
  if (reply.kind === 'queued')
    throw new CliError(`the checkout's worker queued run ${reply.instance_id} for a command that follows its run`);
  return {
    started: startedOf(reply, worker),
    definition: reply.definition,
    file: reply.file,
    dataContext: reply.data_context,
  };
}

/**
 * Hand the command line to the checkout's worker now, bringing it up first when none is (the run
 * needs it either way, and waiting for it costs this command less than starting the run itself,
 * which loads the Temporal client SDK: about a second of CPU on the machine the worker is
 * starting on). Undefined when the command may not ask a worker (client/worker-ask.ts), the
 * worker did not come up, or it refused: the command then starts the run itself and reports what
 * stands in the way in its own words (a server that cannot start, a newer worker).
 */
async function startAskedNow(
  opts: RunOptions,
  env: NodeJS.ProcessEnv,
  sent: () => void,
): Promise<StartedThere | { queued: Queued; worker: EarlyStart['worker'] } | undefined> {
  const line = opts.commandLine;
  if (line === undefined || (opts.place ?? { kind: 'checkout' }).kind !== 'checkout') return undefined;
  let target = checkoutWorkerTarget(opts.cwd, env);
  if (target === undefined) {
    const route = checkoutWorkerRoute(opts.cwd, env);
    if (route === undefined) return undefined;
    try {
      await ensureCheckoutWorker(opts.cwd, route.address);
    } catch {
      return undefined;
    }
    target = checkoutWorkerTarget(opts.cwd, env);
    if (target === undefined) return undefined;
  }
  const reply = await askArgvStart(target, line.argv, line.invokedIn, env, new Date(), sent);
  if (reply?.kind === 'queued' && opts.background) return { queued: reply, worker: target.worker };
  return startedBy(reply, target.worker);
}

/** Run a loop (to its end, unless `--background`). Returns the process exit code. */
export async function runCommand(opts: RunOptions): Promise<number> {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  // The run's actions see the environment of this command as it was invoked (host/run-env.ts).
  const env = { ...process.env };
  // Queued by the checkout's worker (`--background`): printed as the bin prints it (early-start.ts).
  if (opts.background && (await opts.early?.printQueued(out))) return EXIT.ok;
  const early = opts.early ? startedBy(await opts.early.reply, opts.early.worker) : undefined;
  const { definition, file, dataContext } = early ?? load(opts);
  if (opts.dryRun) {
    printPlan(definition, opts.json, out);
    return EXIT.ok;
  }
  if (!early) checkProviderKeys(definition, env);
  // Ctrl-C from here on is a graceful stop: before the workflow exists it is noted, after, it
  // cancels the run (which kills its action and records the outcome). A closed terminal (SIGHUP)
  // ends only this process: the run goes on in its worker. One that came during the early start
  // was noted there.
  const interruption = opts.background ? undefined : interruptible(opts.err);
  const noted = opts.early?.takeInterrupt() === true;
  try {
    // A Ctrl-C while the worker refused the early start: no run exists, and none is started.
    if (noted && !early) return EXIT.cancelled;
    if (noted && interruption) interruption.interrupt.requested = true;
    // The connected part (the Temporal client) is needed either way, after the start: loaded once
    // the worker has the request, while it starts the run, or now when it will not.
    let connected: Promise<typeof import('./run-connected.js')> | undefined;
    const loadConnected = () => (connected ??= import('./run-connected.js'));
    // Followed through the worker too when it can (run-followed.ts): then no Temporal SDK at all.
    let followed: Promise<typeof import('./run-followed.js')> | undefined;
    const loadFollowed = () => (followed ??= import('./run-followed.js'));
    const viaWorker = followableByWorker(opts, definition);
    // No early start (no worker was up then) or a refused one: the worker is asked now.
    const now = early
      ? undefined
      : await startAskedNow(opts, env, () =>
          // In the background the worker's answer is all the command needs: nothing to load.
          opts.background ? undefined : void (viaWorker ? loadFollowed() : loadConnected()).catch(() => undefined),
        );
    // Queued in the background by the worker: it said all there is to print (no Temporal SDK).
    if (now !== undefined && 'queued' in now) {
      const { queued, worker } = now;
      printBackgroundStart(out, queued.json, {
        instanceId: queued.instance_id,
        taskQueue: queued.task_queue,
        worker,
        cwd: opts.cwd,
        uiUrl: queued.run_url,
      });
      return EXIT.ok;
    }
    const startedByWorker = (early ?? now)?.started;
    let reporter: LoadedRun['reporter'];
    if (startedByWorker && viaWorker) {
      const { followThroughItsWorker } = await loadFollowed();
      const outcome = await followThroughItsWorker(opts, { definition, started: startedByWorker, interruption });
      if (typeof outcome === 'number') return outcome;
      reporter = outcome.reporter;
    }
    const { runLoaded } = await loadConnected();
    return await runLoaded(opts, {
      definition,
      file,
      dataContext,
      env,
      interruption,
      startedByWorker,
      ...(reporter ? { reporter } : {}),
    });
  } finally {
    interruption?.stop();
  }
}

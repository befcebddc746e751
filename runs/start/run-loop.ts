/**
 * `ll-loop run <name|path>`: load and validate the loop, then start it — through the checkout's
 * worker when it is up (start-through-worker.ts: no Temporal SDK loaded before the start), else
 * on this command's own connection — and follow it: by the runs service's `follow` when that
 * worker started the run (run-followed.ts: through the worker, no Temporal SDK at all), else on
 * the command's own connection (run-connected.ts, loaded after the start was handed over). Nothing here may import the
 * Temporal SDK: it is `run`'s path to the start.
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { interruptible } from '../follow/interrupt.js';
import { loadLoop, parseContextArgs } from '../../loader/load.js';
import { printPlan } from './dry-run.js';
import { printDiagnostics } from '../../reporters/diagnostics.js';
import { checkProviderKeys } from './provider-keys.js';
import { startedInBackground, startedOf, type StartedByWorker } from './start-through-worker.js';
import type { StartOutcome } from './run-start.js';
import { lockOptionsOf } from './run-options.js';
import { refusalOf, type Diagnostic } from '../../fsm/diagnostics.js';
import { printBackgroundStart } from './background-start.js';
import { followableByWorker } from './run-follow-choice.js';
import type { EarlyStart } from './early-start.js';
import type { RunOptions } from './run-options.js';

/** The loop `run` would start, or what is wrong with it (nothing printed). */
export function loadForRun(
  opts: RunOptions,
): { definition: LoopDefinition; file: string; dataContext: string[] } | { file: string; diagnostics: Diagnostic[] } {
  const context = parseContextArgs(opts.context);
  const overrides = {
    context,
    noLlm: opts.noLlm,
    requireParameters: true,
    runContext: true,
    refuseUnusedContext: opts.allowUnknownContext !== true,
    ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
    ...(opts.llmModel === undefined ? {} : { llmModel: opts.llmModel }),
    ...opts.definitionOverrides,
  };
  const loaded = loadLoop(opts.target, opts.cwd, overrides);
  if (!loaded.definition) return { file: loaded.file, diagnostics: loaded.diagnostics };
  // Values from the command line are data in shell actions, not code (docs/decisions.md).
  return { definition: loaded.definition, file: loaded.file, dataContext: loaded.dataContext ?? [] };
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
      `${refusalOf(loaded.file, loaded.diagnostics)}; nothing was run`,
      'fix the errors above, then run again',
      EXIT.usage,
    );
  }
  return loaded;
}

/**
 * The run the checkout's worker started from the bin's early start (early-start.ts), with the loop
 * as it loaded it; undefined when it was not asked or refused (the command then does it all). The
 * worker's error is the command's.
 */
async function startedEarly(
  early: EarlyStart | undefined,
): Promise<{ started: StartedByWorker; definition: LoopDefinition; file: string; dataContext: string[] } | undefined> {
  const reply = await early?.reply;
  if (early === undefined || reply === undefined || reply.kind === 'refused') return undefined;
  if (reply.kind === 'error') throw new CliError(reply.message, reply.fix, reply.exit_code);
  // Only a `--background` start is queued, and runCommand prints it before asking here.
  if (reply.kind === 'queued')
    throw new CliError(`the checkout's worker queued run ${reply.instance_id} for a command that follows its run`);
  return {
    started: startedOf(reply, early.worker),
    definition: reply.definition,
    file: reply.file,
    dataContext: reply.data_context,
  };
}

/** The run the checkout's worker started, or undefined when it did not. */
function byWorker(outcome: StartOutcome): StartedByWorker | undefined {
  if (outcome.kind !== 'started') return undefined;
  const { run } = outcome;
  return run.by === 'worker' && run.worker ? { ...run, by: 'worker', worker: run.worker } : undefined;
}

/** Run a loop (to its end, unless `--background`). Returns the process exit code. */
export async function runCommand(opts: RunOptions): Promise<number> {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  // The run's actions see the environment of this command as it was invoked (host/run-env.ts).
  const env = { ...process.env };
  // Queued by the checkout's worker (`--background`): printed as the bin prints it (early-start.ts).
  if (opts.background && (await opts.early?.printQueued(out))) return EXIT.ok;
  const early = await startedEarly(opts.early);
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
    const runs = opts.runs;
    const viaWorker = runs !== undefined && followableByWorker(opts, definition);
    const startedByWorker =
      early?.started ??
      (runs
        ? byWorker(
            await runs.start({
              cwd: opts.cwd,
              definition,
              file,
              env,
              dataContext,
              started: new Date(),
              lock: lockOptionsOf(opts),
              ...(opts.place ? { place: opts.place } : {}),
              background: opts.background === true,
              // In the background the worker's answer is all the command needs: nothing to load.
              sent: () =>
                opts.background
                  ? undefined
                  : void (viaWorker ? loadFollowed() : loadConnected()).catch(() => undefined),
              // Else the command starts it on the connection it follows on (run-connected.ts).
              workerOnly: true,
            }),
          )
        : undefined);
    // Started in the background by the worker: it said all there is to print (no Temporal SDK).
    if (startedByWorker && opts.background) {
      printBackgroundStart(out, opts.json, startedInBackground(opts.cwd, startedByWorker));
      return EXIT.ok;
    }
    if (startedByWorker && viaWorker && runs) {
      const { followThroughItsWorker } = await loadFollowed();
      return await followThroughItsWorker(opts, {
        definition,
        started: startedByWorker,
        interruption,
        follow: (req) => runs.follow(req),
      });
    }
    const { runLoaded } = await loadConnected();
    return await runLoaded(opts, { definition, file, dataContext, env, interruption, startedByWorker });
  } finally {
    interruption?.stop();
  }
}

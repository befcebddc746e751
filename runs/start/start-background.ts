/**
 * `run --background` as a typed function, printing nothing: the loop loaded and checked as `run`
 * loads it, the run started by the checkout's worker when it can (start-through-worker.ts), else
 * on a connection of this process (run-connected.ts), and what `run --background` would print
 * returned instead. For callers that are not the command (the MCP server, client/mcp/).
 *
 * The run's actions see `env` (the caller's environment as it was invoked: host/run-env.ts keeps
 * it out of the run's history, as for every start).
 */
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { BackgroundStart } from './background-start.js';
import { checkProviderKeys } from './provider-keys.js';
import { loadForRun, lockOptionsOf } from './run-loop.js';
import type { RunOptions } from './run-options.js';
import { startedInBackground, startThroughWorker } from './start-through-worker.js';

/** What a background start needs: `run`'s options without its output, and the run's environment. */
export type BackgroundStartOptions = Omit<RunOptions, 'background' | 'json' | 'out' | 'early' | 'dryRun'> & {
  env: NodeJS.ProcessEnv;
};

/** Start the loop `opts.target` names in the background; the run as `run --background` reports it. */
export async function startInBackground(opts: BackgroundStartOptions): Promise<BackgroundStart> {
  const runOpts: RunOptions = { ...opts, background: true, json: true, dryRun: false, err: opts.err ?? (() => {}) };
  const loaded = loadForRun(runOpts);
  if ('diagnostics' in loaded)
    throw new CliError(
      `${loaded.file} is not a valid loop; nothing was run:\n${loaded.diagnostics.map((d) => formatDiagnostic(d)).join('\n')}`,
      'fix the errors above (validate_loop, or ll-loop validate, shows them), then start it again',
      EXIT.usage,
    );
  const { definition, file, dataContext } = loaded;
  checkProviderKeys(definition, opts.env);
  const byWorker =
    (opts.place ?? { kind: 'checkout' }).kind === 'checkout'
      ? await startThroughWorker({
          cwd: opts.cwd,
          definition,
          file,
          env: opts.env,
          dataContext,
          started: new Date(),
          lock: lockOptionsOf(runOpts),
          background: true,
        })
      : undefined;
  if (byWorker) return startedInBackground(opts.cwd, byWorker);
  let started: BackgroundStart | undefined;
  const { runLoaded } = await import('./run-connected.js');
  await runLoaded(
    { ...runOpts, onBackgroundStart: (s) => (started = s) },
    { definition, file, dataContext, env: opts.env, interruption: undefined, startedByWorker: undefined },
  );
  if (!started) throw new CliError(`the run of ${definition.name} was not started`, undefined, EXIT.runError);
  return started;
}

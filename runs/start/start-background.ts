/**
 * `run --background` for a caller that is not the command (the MCP server, client/mcp/),
 * printing nothing: the loop loaded and checked as `run` loads it (run-loop.ts loadForRun, the
 * provider keys), then started in the background by the runs service's `start`, handed in by
 * the caller (runs/service/: through the checkout's worker when it serves, else on a connection
 * of the caller's), which answers once the run's scope lock has. The started run is returned.
 *
 * The run's actions see `env` (the caller's environment as it was invoked: host/run-env.ts keeps
 * it out of the run's history, as for every start).
 */
import { formatDiagnostic, refusalOf, type Diagnostic } from '../../fsm/diagnostics.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { checkProviderKeys } from './provider-keys.js';
import { loadForRun } from './run-loop.js';
import { lockOptionsOf, type RunOptions } from './run-options.js';
import type { RunStart, StartedRun, StartOutcome } from './run-start.js';

/** What a background start needs: `run`'s options without its output, and the run's environment. */
export type BackgroundStartOptions = Omit<RunOptions, 'background' | 'json' | 'out' | 'early' | 'dryRun' | 'runs'> & {
  env: NodeJS.ProcessEnv;
};

/** Start the loop `opts.target` names in the background; the started run. */
export async function startInBackground(
  opts: BackgroundStartOptions,
  runs: { start(req: RunStart): Promise<StartOutcome> },
): Promise<StartedRun> {
  const runOpts: RunOptions = { ...opts, background: true, json: true, dryRun: false };
  const loaded = loadForRun(runOpts);
  if ('diagnostics' in loaded) {
    const values = contextValuesToGive(loaded.diagnostics);
    if (values)
      throw new CliError(
        `${values.problems.join('; ')}; nothing was run`,
        `start it again with context: ${JSON.stringify(values.example)}`,
        EXIT.usage,
      );
    throw new CliError(
      `${refusalOf(loaded.file, loaded.diagnostics)}; nothing was run:\n${loaded.diagnostics.map((d) => formatDiagnostic(d)).join('\n')}`,
      'fix the errors above (validate_loop, or ll-loop validate, shows them), then start it again',
      EXIT.usage,
    );
  }
  const { definition, file, dataContext } = loaded;
  checkProviderKeys(definition, opts.env);
  const outcome = await runs.start({
    cwd: opts.cwd,
    definition,
    file,
    env: opts.env,
    dataContext,
    started: new Date(),
    lock: lockOptionsOf(runOpts),
    ...(opts.place ? { place: opts.place } : {}),
    background: true,
    onNote: opts.err ?? (() => undefined),
  });
  // Only a start asked with `workerOnly` is refused; this one is made by the caller when the worker cannot.
  if (outcome.kind === 'refused')
    throw new CliError(`the run of ${definition.name} was not started: ${outcome.why}`, undefined, EXIT.runError);
  return outcome.run;
}

/**
 * When every error is a context value missing or of the wrong type (its fix `pass --context
 * KEY=VALUE`), the caller's values are what to change, not the loop file: the problems, and the
 * context that fixes them as the caller gives it.
 */
function contextValuesToGive(
  diagnostics: Diagnostic[],
): { problems: string[]; example: Record<string, string> } | undefined {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const fixes = errors.map((d) => /^pass --context ([^=\s]+)=(\S*)$/.exec(d.fix ?? ''));
  if (errors.length === 0 || fixes.some((m) => m === null)) return undefined;
  return {
    problems: errors.map((d) => d.message),
    example: Object.fromEntries(fixes.map((m) => [m![1]!, m![2] === 'VALUE' ? '…' : m![2]!])),
  };
}

/**
 * `ll-loop status --follow <name|run-id>` (alias `ll-loop monitor`): the progress display of a
 * run started anywhere. The events are rebuilt from the run's Temporal history as it grows (the
 * history is long-polled, so each workflow task shows up as it completes), printed through the
 * same reporter `ll-loop run` uses, until the run closes; then the end line.
 */
import { exitCodeFor, EXIT } from '../exit-codes.js';
import { createHumanReporter } from '../reporters/human.js';
import type { Reporter, RunInfo } from '../reporters/reporter.js';
import { colourWanted, createStyle } from '../reporters/style.js';
import { rebuildEvents } from '../runs/rebuild-events.js';
import { queryStatus, resolveRun, runUrl } from '../runs/run-target.js';
import { withSession } from '../temporal/session.js';

/** Options of {@link followCommand}; `out` receives the progress display, `err` notes. */
export interface FollowOptions {
  cwd: string;
  target: string;
  json: boolean;
  out: (text: string) => void;
  err?: (text: string) => void;
  /** ANSI colour in the human display; by default when stdout is a terminal. */
  colour?: boolean;
}

/** JSON Lines: one event per line as it happens, then `{"instance_id", …result}`. */
function jsonLinesReporter(out: (t: string) => void): Reporter {
  return {
    onEvent: (event) => out(`${JSON.stringify(event)}\n`),
    onResult: (result, info) => out(`${JSON.stringify({ instance_id: info.instanceId, ...result })}\n`),
  };
}

/** Follow a run to its end. Returns the run's exit code (as `ll-loop run` would have). */
export async function followCommand(opts: FollowOptions): Promise<number> {
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  return withSession(opts.cwd, async ({ client, connection, endpoint }) => {
    const run = await resolveRun(client, opts.target, { latest: true });
    const url = runUrl(endpoint.uiUrl, endpoint.namespace, run.id);
    const info: RunInfo = { instanceId: run.id, ...(url ? { uiUrl: url } : {}) };
    if (run.open && (await queryStatus(connection, client.workflow.getHandle(run.id)).catch(() => null)) === null) {
      err(`note: no worker is running ${run.id}; it makes no progress until one does (ll-loop resume ${run.id})\n`);
    }
    let reporter: Reporter | undefined;
    const rebuilt = await rebuildEvents(client, run.id, {
      follow: true,
      onInput: (input) => {
        reporter = opts.json
          ? jsonLinesReporter(opts.out)
          : createHumanReporter(opts.out, createStyle(opts.colour ?? colourWanted(process.stdout)), input.definition.max_iterations);
        reporter.onStart?.(info);
      },
      onEvent: (event) => reporter?.onEvent(event),
    });
    for (const warning of rebuilt.warnings) err(`warning: ${warning}\n`);
    const end = rebuilt.end;
    if (end?.status === 'completed') {
      reporter?.onResult(end.result, info);
      return exitCodeFor(end.result);
    }
    const why = end ? `${end.status.replace('_', ' ')}: ${end.reason}` : 'closed';
    if (opts.json) opts.out(`${JSON.stringify({ instance_id: run.id, status: end?.status ?? 'closed', reason: end && 'reason' in end ? end.reason : undefined })}\n`);
    else opts.out(`\nRun ${why} (no loop result)\n`);
    return EXIT.runError;
  });
}

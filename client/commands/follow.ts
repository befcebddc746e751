/**
 * `ll-loop status --follow <name|run-id>` (alias `ll-loop monitor`): the progress display of a
 * run started anywhere: its events, read from its Temporal history as it grows (runs/follow-run.ts,
 * the same way `ll-loop run` shows its own), until the run closes; then the end line.
 */
import { createHumanReporter } from '../../reporters/human.js';
import type { Reporter, RunInfo } from '../../reporters/reporter.js';
import { colourWanted, createStyle } from '../../reporters/style.js';
import { followRun } from '../../runs/follow/follow-run.js';
import { queryStatus, resolveRun, runUrl } from '../../runs/find/run-target.js';
import { projectScope } from '../../runs/find/find-runs.js';
import { withSession } from '../../temporal/session.js';
import { keepCheckoutWorker } from '../../runs/follow/keep-worker.js';

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
    const run = await resolveRun(client, opts.target, { latest: true, project: projectScope(opts.cwd) });
    const url = runUrl(endpoint.uiUrl, endpoint.namespace, run.id);
    const info: RunInfo = { instanceId: run.id, ...(url ? { uiUrl: url } : {}) };
    if (run.open && (await queryStatus(connection, client.workflow.getHandle(run.id)).catch(() => null)) === null) {
      err(`note: no worker is running ${run.id}; it makes no progress until one does (ll-loop resume ${run.id})\n`);
    }
    // The run's checkout (this one when it has no record of it): its worker is kept up while followed.
    const stopKeeping = run.open ? keepCheckoutWorker(run.cwd ?? opts.cwd, err) : () => undefined;
    return followRun({
      via: client,
      workflowId: run.id,
      info,
      err,
      reporter: (maxIterations) =>
        opts.json
          ? jsonLinesReporter(opts.out)
          : createHumanReporter(opts.out, createStyle(opts.colour ?? colourWanted(process.stdout)), maxIterations),
      ...(opts.json ? { json: opts.out } : {}),
    }).finally(stopKeeping);
  });
}

/**
 * `ll-loop stop <name|run-id> [--force] [--wait S] [--json]`: stop an open run (the runs service
 * does it: runs/control/stop-run.ts) and say how it ended: gracefully, the run completes with `terminated_by:
 * cancelled`; `--force` terminates it in Temporal.
 */
import { bool, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { createHumanReporter } from '../../reporters/human.js';
import { createStyle } from '../../reporters/style.js';
import type { StopRequest } from '../../runs/control/stop-run.js';
import { runsService } from '../../runs/service/runs-service.js';

/** Options of {@link stopCommand}; `out` receives stdout. */
export interface StopOptions extends StopRequest {
  json: boolean;
  out: (text: string) => void;
}

/** `ll-loop stop`. Returns the exit code: 0 once the run has closed. */
export async function stopCommand(opts: StopOptions): Promise<number> {
  const report = await runsService().stop(opts);
  if (opts.json) {
    opts.out(`${JSON.stringify(report, null, 2)}\n`);
    return EXIT.ok;
  }
  if (report.outcome === 'terminated') {
    opts.out(`terminated ${report.id} (no loop result was recorded; its events end where it was)\n`);
  } else if (report.result) {
    opts.out(
      report.outcome === 'cancelled' ? `stopped ${report.id}\n` : `${report.id} ended before the stop took effect\n`,
    );
    createHumanReporter(opts.out, createStyle(false), 0).onResult(report.result, { instanceId: report.id });
  } else {
    opts.out(`${report.id} closed (${report.status})\n`);
  }
  return EXIT.ok;
}

/** `ll-loop stop` in the command table. */
export const stopSpec: CommandSpec = {
  usage: 'stop <name|run-id> [--force] [--wait S] [--json]   stop a run (its action is killed)',
  flags: { force: { type: 'boolean' }, wait: { type: 'string' }, json: { type: 'boolean' } },
  run(ctx) {
    const [target, ...rest] = ctx.positionals;
    if (target === undefined) throw new UsageError('stop needs a loop name or run id', 'll-loop stop <name|run-id>');
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, 'll-loop stop <name|run-id>');
    const wait = str(ctx, 'wait');
    const waitS = wait === undefined ? undefined : Number(wait);
    if (waitS !== undefined && !(Number.isFinite(waitS) && waitS >= 0))
      throw new UsageError(`--wait must be a number of seconds, got "${wait}"`);
    return stopCommand({
      cwd: ctx.cwd,
      target,
      force: bool(ctx, 'force'),
      json: bool(ctx, 'json'),
      out: ctx.out,
      ...(waitS === undefined ? {} : { waitS }),
    });
  },
};

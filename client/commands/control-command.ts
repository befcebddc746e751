/**
 * `ll-loop pause`, `unpause` and `steer`'s shared work: send the update through the runs service
 * (which sends it with runs/control/run-control.ts controlRun) and print what the run answered.
 */
import { EXIT } from '../../errors/exit-codes.js';
import type { ControlOptions, ControlRequest } from '../../runs/control/run-control.js';
import { controlReport } from '../../reporters/control-report.js';
import { runsService } from '../../runs/service/runs-service.js';

/** Send one control update to the run `opts.target` names and say how it went; returns the exit code. */
export async function controlCommand(opts: ControlOptions, req: ControlRequest): Promise<number> {
  const runs = runsService();
  const target = { cwd: opts.cwd, target: opts.target, ...(opts.by === undefined ? {} : { by: opts.by }) };
  const { id, by, answer } = req.kind === 'steer' ? await runs.steer(target, req) : await runs[req.kind](target);
  if (opts.json) {
    opts.out(`${JSON.stringify({ id, action: req.kind, by, ...answer }, null, 2)}\n`);
    return EXIT.ok;
  }
  opts.out(`${controlReport(id, req, answer, by)}\n`);
  return EXIT.ok;
}

/** `ll-loop run <name|path>` flags → runCommand, following through the runs service (the flags and their reading: run-flags.ts). */
import type { CommandSpec } from '../command-table.js';
import { EXIT } from '../../errors/exit-codes.js';
import { runCommand } from '../../runs/start/run-loop.js';
import { runsService } from '../../runs/service/runs-service.js';
import { RUN_FLAGS, RUN_USAGE, runOptionsOf } from './run-flags.js';

export const runSpec: CommandSpec = {
  usage: RUN_USAGE,
  flags: RUN_FLAGS,
  async run(ctx) {
    const opts = runOptionsOf(ctx);
    const code = await runCommand({ ...opts, runs: runsService(), ...(ctx.early ? { early: ctx.early } : {}) });
    // A built-in that failed in a project whose own commands differ from its defaults says so.
    if (code === EXIT.failureTerminal && !opts.json) {
      const { initHintAfterRun } = await import('../init/run-hint.js');
      const hint = initHintAfterRun(opts.cwd, opts.target, opts.context);
      if (hint !== undefined) ctx.err(`${hint}\n`);
    }
    return code;
  },
};

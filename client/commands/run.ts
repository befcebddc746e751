/** `ll-loop run <name|path>` flags → runCommand, following through the runs service (the flags and their reading: run-flags.ts). */
import type { CommandSpec } from '../command-table.js';
import { runCommand } from '../../runs/start/run-loop.js';
import { runsService } from '../../runs/service/runs-service.js';
import { RUN_FLAGS, RUN_USAGE, runOptionsOf } from './run-flags.js';

export const runSpec: CommandSpec = {
  usage: RUN_USAGE,
  flags: RUN_FLAGS,
  run(ctx) {
    return runCommand({ ...runOptionsOf(ctx), runs: runsService(), ...(ctx.early ? { early: ctx.early } : {}) });
  },
};

/** `ll-loop validate <name|path>`: schema, graph and template checks, as text or `--json` (validate-report.ts). */
import { bool, JSON_FLAG, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { validateLoop } from './validate-report.js';

export const validateSpec: CommandSpec = {
  usage: 'validate <name|path> [--json]                check a loop file',
  flags: JSON_FLAG,
  run(ctx) {
    const target = ctx.positionals[0];
    if (target === undefined) throw new UsageError('validate needs a loop name or path', 'll-loop validate <name>');
    return validateLoop({
      cwd: ctx.cwd,
      target,
      json: bool(ctx, 'json'),
      out: ctx.out,
      err: ctx.err,
      ...(ctx.invokedIn ? { invokedIn: ctx.invokedIn } : {}),
    });
  },
};

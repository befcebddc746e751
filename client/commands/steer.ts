/** `ll-loop steer <name|run-id> --goto STATE [--context K=V]… [--note TEXT]` → client/commands/control-command.ts. */
import { bool, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { CONTEXT_FLAGS, contextPairs } from './context-flags.js';
import { parseContextArgs } from '../../loader/load.js';

export const steerSpec: CommandSpec = {
  usage:
    'steer <name|run-id> --goto STATE [--context K=V]… [--context-file K=PATH]… [--note TEXT] [--json]   send a running loop to another state next',
  flags: { ...CONTEXT_FLAGS, goto: { type: 'string' }, note: { type: 'string' }, json: { type: 'boolean' } },
  async run(ctx) {
    const [target, ...rest] = ctx.positionals;
    const usage = 'll-loop steer <name|run-id> --goto STATE [--context K=V]… [--note TEXT]';
    if (target === undefined) throw new UsageError('steer needs a loop name or run id', usage);
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, usage);
    const to = str(ctx, 'goto');
    if (to === undefined || to === '') throw new UsageError('steer needs --goto STATE', usage);
    const context = parseContextArgs(contextPairs(ctx));
    const note = str(ctx, 'note');
    const { controlCommand } = await import('./control-command.js');
    return controlCommand(
      { cwd: ctx.cwd, target, json: bool(ctx, 'json'), out: ctx.out },
      {
        kind: 'steer',
        to,
        ...(note === undefined ? {} : { note }),
        ...(Object.keys(context).length ? { context } : {}),
      },
    );
  },
};

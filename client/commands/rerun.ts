/** `ll-loop rerun <name|run-id> --from STATE[#N] [--context K=V]… [--background]` → runs/control/rerun.ts. */
import { colourWanted } from '../../reporters/style.js';
import { bool, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { CONTEXT_FLAGS, contextPairs } from './context-flags.js';
import { QUEUE_FLAGS, queueChoiceOf } from './queue-flags.js';

export const rerunSpec: CommandSpec = {
  usage:
    'rerun <name|run-id> --from STATE[#N] [--context K=V]… [--context-file K=PATH]… [--queue [--queue-timeout D]] [--background] [--verbose|--quiet] [--json]   start a new run from the state an earlier run entered',
  flags: {
    ...CONTEXT_FLAGS,
    ...QUEUE_FLAGS,
    from: { type: 'string' },
    background: { type: 'boolean' },
    json: { type: 'boolean' },
    verbose: { type: 'boolean' },
    quiet: { type: 'boolean' },
  },
  async run(ctx) {
    const usage = 'll-loop rerun <name|run-id> --from STATE[#N] [--context K=V]…';
    const [target, ...rest] = ctx.positionals;
    if (target === undefined) throw new UsageError('rerun needs a loop name or run id', usage);
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, usage);
    const from = str(ctx, 'from');
    if (from === undefined || from === '') throw new UsageError('rerun needs --from STATE (or STATE#N)', usage);
    if (bool(ctx, 'verbose') && bool(ctx, 'quiet'))
      throw new UsageError('--verbose and --quiet contradict each other', 'use one of them');
    const { rerunCommand } = await import('../../runs/control/rerun.js');
    return rerunCommand({
      cwd: ctx.cwd,
      target,
      from,
      context: contextPairs(ctx),
      ...queueChoiceOf(ctx),
      background: bool(ctx, 'background'),
      json: bool(ctx, 'json'),
      colour: colourWanted(ctx.terminal),
      detail: bool(ctx, 'verbose') ? 'verbose' : bool(ctx, 'quiet') ? 'quiet' : 'normal',
      out: ctx.out,
      err: ctx.err,
    });
  },
};

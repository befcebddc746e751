/** `ll-loop pause <name|run-id>` and `ll-loop unpause <name|run-id>` → client/commands/control-command.ts. */
import { bool, type CommandContext, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';

function target(ctx: CommandContext, verb: string): string {
  const [run, ...rest] = ctx.positionals;
  if (run === undefined) throw new UsageError(`${verb} needs a loop name or run id`, `ll-loop ${verb} <name|run-id>`);
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, `ll-loop ${verb} <name|run-id>`);
  return run;
}

export const pauseSpec: CommandSpec = {
  usage: 'pause <name|run-id> [--json]   hold a running loop before its next state (its action finishes)',
  flags: { json: { type: 'boolean' } },
  async run(ctx) {
    const { controlCommand } = await import('./control-command.js');
    return controlCommand(
      { cwd: ctx.cwd, target: target(ctx, 'pause'), json: bool(ctx, 'json'), out: ctx.out },
      { kind: 'pause' },
    );
  },
};

export const unpauseSpec: CommandSpec = {
  usage: 'unpause <name|run-id> [--json]   let a paused loop go on',
  flags: { json: { type: 'boolean' } },
  async run(ctx) {
    const { controlCommand } = await import('./control-command.js');
    return controlCommand(
      { cwd: ctx.cwd, target: target(ctx, 'unpause'), json: bool(ctx, 'json'), out: ctx.out },
      { kind: 'unpause' },
    );
  },
};

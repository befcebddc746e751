/** Small commands: validate, server, schema. */
import { loopJsonSchema } from '../../fsm/schema.js';
import { bool, JSON_FLAG, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { validateCommand } from './validate.js';

export const validateSpec: CommandSpec = {
  usage: 'validate <name|path> [--json]                check a loop file',
  flags: JSON_FLAG,
  run(ctx) {
    const target = ctx.positionals[0];
    if (target === undefined) throw new UsageError('validate needs a loop name or path', 'll-loop validate <name>');
    return validateCommand({
      cwd: ctx.cwd,
      target,
      json: bool(ctx, 'json'),
      out: ctx.out,
      err: ctx.err,
      ...(ctx.invokedIn ? { invokedIn: ctx.invokedIn } : {}),
    });
  },
};

export const serverSpec: CommandSpec = {
  usage: 'server start|status|stop [--port N] [--ui-port N] [--json]   the embedded Temporal dev server',
  flags: { ...JSON_FLAG, port: { type: 'string' }, 'ui-port': { type: 'string' } },
  // Loaded when it runs: validate and schema, in this module too, never touch Temporal.
  run: async (ctx) =>
    (await import('./server.js')).serverCommand(ctx.positionals[0], ctx.cwd, bool(ctx, 'json'), ctx.out, {
      port: str(ctx, 'port'),
      uiPort: str(ctx, 'ui-port'),
    }),
};

export const schemaSpec: CommandSpec = {
  usage: 'schema                                       the loop format as JSON Schema (for editors)',
  flags: {},
  run(ctx) {
    ctx.out(`${JSON.stringify({ title: 'll-loop loop definition', ...loopJsonSchema() }, null, 2)}\n`);
    return EXIT.ok;
  },
};

/** `ll-loop schema`: the loop format as JSON Schema, for editors. */
import { loopJsonSchema } from '../../fsm/schema.js';
import type { CommandSpec } from '../command-table.js';
import { EXIT } from '../../errors/exit-codes.js';

export const schemaSpec: CommandSpec = {
  usage: 'schema                                       the loop format as JSON Schema (for editors)',
  flags: {},
  run(ctx) {
    ctx.out(`${JSON.stringify({ title: 'll-loop loop definition', ...loopJsonSchema() }, null, 2)}\n`);
    return EXIT.ok;
  },
};

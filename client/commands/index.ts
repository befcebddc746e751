/** Every `ll-loop` subcommand, by name (see client/command-table.ts). */
import type { CommandSpec } from '../command-table.js';
import { runSpec } from './run-spec.js';
import { schemaSpec, serverSpec, validateSpec } from './simple-specs.js';

export const COMMANDS: Record<string, CommandSpec> = {
  run: runSpec,
  validate: validateSpec,
  server: serverSpec,
  schema: schemaSpec,
};

/**
 * `ll-loop inbox [--all-projects] [--json]` (and `ll-loop list --waiting`): every run waiting for
 * a person — run, state, question, since when, deadline — newest wait first, with the command
 * that answers each (printed by inbox-report.ts, which `list --waiting` shares).
 */
import { bool, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { printInbox } from './inbox-report.js';

export const inboxSpec: CommandSpec = {
  usage: 'inbox [--all-projects] [--json]   runs waiting for a person, newest first',
  flags: { 'all-projects': { type: 'boolean' }, json: { type: 'boolean' } },
  run(ctx) {
    if (ctx.positionals.length > 0)
      throw new UsageError(`unexpected arguments: ${ctx.positionals.join(' ')}`, 'll-loop inbox [--json]');
    return printInbox({
      cwd: ctx.cwd,
      json: bool(ctx, 'json'),
      allProjects: bool(ctx, 'all-projects'),
      out: ctx.out,
    });
  },
};

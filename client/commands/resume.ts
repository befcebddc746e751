/** `ll-loop resume <name|run-id>` flags → resumeCommand. */
import { colourWanted } from '../../reporters/style.js';
import { bool, str, type CommandSpec } from '../command-table.js';
import { CONTEXT_FLAGS, contextPairs } from './context-flags.js';
import { positiveInt } from './argument-errors.js';
import { UsageError } from '../../errors/errors.js';
import { resumeCommand } from '../../runs/resume/resume-run.js';
import { QUEUE_FLAGS, queueChoiceOf } from './queue-flags.js';

export const resumeSpec: CommandSpec = {
  usage:
    'resume <name|run-id> [--context K=V]… [--context-file K=PATH]… [--context-allow-unknown] [--max-iterations N] [--queue [--queue-timeout D]] [--background] [--verbose|--quiet] [--json]   continue a stopped run, or one that lost its worker',
  flags: {
    ...CONTEXT_FLAGS,
    ...QUEUE_FLAGS,
    'context-allow-unknown': { type: 'boolean' },
    'max-iterations': { type: 'string' },
    json: { type: 'boolean' },
    background: { type: 'boolean' },
    verbose: { type: 'boolean' },
    quiet: { type: 'boolean' },
  },
  run(ctx) {
    const target = ctx.positionals[0];
    if (target === undefined)
      throw new UsageError('resume needs a loop name or a run id', 'll-loop resume <name|run-id>');
    if (ctx.positionals.length > 1)
      throw new UsageError(
        `unexpected arguments: ${ctx.positionals.slice(1).join(' ')}`,
        'quote values that contain spaces',
      );
    if (bool(ctx, 'verbose') && bool(ctx, 'quiet'))
      throw new UsageError('--verbose and --quiet contradict each other', 'use one of them');
    const maxIterations = positiveInt(str(ctx, 'max-iterations'), '--max-iterations');
    return resumeCommand({
      cwd: ctx.cwd,
      target,
      ...queueChoiceOf(ctx),
      context: contextPairs(ctx),
      allowUnknownContext: bool(ctx, 'context-allow-unknown'),
      json: bool(ctx, 'json'),
      background: bool(ctx, 'background'),
      detail: bool(ctx, 'verbose') ? 'verbose' : bool(ctx, 'quiet') ? 'quiet' : 'normal',
      colour: colourWanted(ctx.terminal),
      out: ctx.out,
      err: ctx.err,
      ...(maxIterations === undefined ? {} : { maxIterations }),
    });
  },
};

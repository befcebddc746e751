/** `ll-loop validate <name|path>`: schema, graph and template checks, as text or `--json`. */
import { relative, sep } from 'node:path';
import { bool, JSON_FLAG, type CommandSpec } from '../command-table.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { loadLoop } from '../../loader/load.js';
import { printDiagnostics } from '../reporters/diagnostics.js';

export interface ValidateOptions {
  cwd: string;
  target: string;
  json: boolean;
  out?: (text: string) => void;
  err?: (text: string) => void;
  /** Where the command was started: text output names files of the project relative to it. */
  invokedIn?: string;
}

/**
 * A file as the text output names it: relative to where the command was started when it is in the
 * project (as git does, `../` included), else absolute (a built-in loop of the installed package).
 * `--json` keeps absolute paths.
 */
function shownPath(file: string, project: string, from: string | undefined): string {
  if (from === undefined || !file.startsWith(`${project}${sep}`)) return file;
  return relative(from, file) || file;
}

export function validateCommand(opts: ValidateOptions): number {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  const loaded = loadLoop(opts.target, opts.cwd);
  const valid = loaded.definition !== undefined;
  if (opts.json) {
    out(`${JSON.stringify({ file: loaded.file, valid, diagnostics: loaded.diagnostics }, null, 2)}\n`);
  } else {
    const show = (file: string) => shownPath(file, opts.cwd, opts.invokedIn);
    printDiagnostics(
      loaded.diagnostics.map((d) => (d.file ? { ...d, file: show(d.file) } : d)),
      false,
      out,
      err,
    );
    const warnings = loaded.diagnostics.filter((d) => d.severity === 'warning').length;
    const errors = loaded.diagnostics.length - warnings;
    if (valid) {
      const states = Object.keys(loaded.definition!.states).length;
      out(
        `✓ ${show(loaded.file)} is valid (${states} states${warnings ? `, ${warnings} warning${warnings > 1 ? 's' : ''}` : ''})\n`,
      );
    } else {
      err(
        `✗ ${show(loaded.file)}: ${errors} error${errors > 1 ? 's' : ''}${warnings ? `, ${warnings} warning${warnings > 1 ? 's' : ''}` : ''}\n`,
      );
    }
  }
  return valid ? EXIT.ok : EXIT.usage;
}

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

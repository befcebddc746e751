/**
 * A loop's check as `ll-loop validate` prints it: its diagnostics, then one line (valid, with its
 * states and warnings, or its errors), or `--json`. A helper of `validate` and of `create`, which
 * checks the loop it wrote the same way.
 */
import { relative, sep } from 'node:path';
import { EXIT } from '../../errors/exit-codes.js';
import { loadLoop } from '../../loader/load.js';
import { printDiagnostics } from '../../reporters/diagnostics.js';

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

/** Check the loop `opts.target` names and print what `validate` prints; returns the exit code. */
export function validateLoop(opts: ValidateOptions): number {
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
    const errors = loaded.diagnostics.filter((d) => d.severity === 'error').length;
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

/** `ll-loop validate <name|path>`: schema, graph and template checks, as text or `--json`. */
import { EXIT } from '../exit-codes.js';
import { loadLoop } from '../../loader/load.js';
import { printDiagnostics } from '../reporters/diagnostics.js';

export interface ValidateOptions {
  cwd: string;
  target: string;
  json: boolean;
  out?: (text: string) => void;
  err?: (text: string) => void;
}

export function validateCommand(opts: ValidateOptions): number {
  const out = opts.out ?? ((t: string) => process.stdout.write(t));
  const err = opts.err ?? ((t: string) => process.stderr.write(t));
  const loaded = loadLoop(opts.target, opts.cwd);
  const valid = loaded.definition !== undefined;
  if (opts.json) {
    out(`${JSON.stringify({ file: loaded.file, valid, diagnostics: loaded.diagnostics }, null, 2)}\n`);
  } else {
    printDiagnostics(loaded.diagnostics, false, out, err);
    const warnings = loaded.diagnostics.filter((d) => d.severity === 'warning').length;
    const errors = loaded.diagnostics.length - warnings;
    if (valid) {
      const states = Object.keys(loaded.definition!.states).length;
      out(`✓ ${loaded.file} is valid (${states} states${warnings ? `, ${warnings} warning${warnings > 1 ? 's' : ''}` : ''})\n`);
    } else {
      err(`✗ ${loaded.file}: ${errors} error${errors > 1 ? 's' : ''}${warnings ? `, ${warnings} warning${warnings > 1 ? 's' : ''}` : ''}\n`);
    }
  }
  return valid ? EXIT.ok : EXIT.usage;
}

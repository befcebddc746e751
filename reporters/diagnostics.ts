/** Load and validation diagnostics for people (one line each on stderr) or as JSON (on stdout). */
import { formatDiagnostic, hasErrors, type Diagnostic } from '../fsm/diagnostics.js';

/** Print diagnostics: one line each on stderr, or a JSON document on stdout. */
export function printDiagnostics(
  diagnostics: readonly Diagnostic[],
  json: boolean,
  out: (t: string) => void,
  err: (t: string) => void,
): void {
  if (json) {
    out(`${JSON.stringify({ valid: !hasErrors(diagnostics), diagnostics }, null, 2)}\n`);
    return;
  }
  for (const d of diagnostics) err(`${formatDiagnostic(d)}\n`);
}

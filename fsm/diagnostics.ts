/**
 * Validation findings. A diagnostic names where (a path into the loop document, and the state
 * when there is one), what is wrong, and how to fix it. The loader adds file, line and column.
 */

/** `note`: a field accepted for compatibility that ll-loop does not use (said once, never a problem). */
type Severity = 'error' | 'warning' | 'note';

export interface Diagnostic {
  severity: Severity;
  message: string;
  /** Path into the loop document, e.g. `['states', 'check', 'on_yes']`. */
  path: Array<string | number>;
  state?: string;
  fix?: string;
  file?: string;
  line?: number;
  column?: number;
  /** `--context`: a value given on the command line is at fault, not the file (no file or line). */
  given?: 'context';
}

export function error(path: Diagnostic['path'], message: string, fix?: string): Diagnostic {
  return withState({ severity: 'error', path, message, ...(fix ? { fix } : {}) });
}

export function warning(path: Diagnostic['path'], message: string, fix?: string): Diagnostic {
  return withState({ severity: 'warning', path, message, ...(fix ? { fix } : {}) });
}

export function note(path: Diagnostic['path'], message: string): Diagnostic {
  return withState({ severity: 'note', path, message });
}

function withState(d: Diagnostic): Diagnostic {
  if (d.path[0] === 'states' && typeof d.path[1] === 'string') d.state = d.path[1];
  return d;
}

/**
 * Why a loaded loop is refused, for the command's one-line error: "<file> is not a valid loop", or,
 * when only values given with `--context` are at fault, that they are not valid for it.
 */
export function refusalOf(file: string, diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  return errors.length > 0 && errors.every((d) => d.given === 'context')
    ? `the --context values are not valid for ${file}`
    : `${file} is not a valid loop`;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** `file:line:col: error: [state x] message — fix`, one line per diagnostic. */
export function formatDiagnostic(d: Diagnostic): string {
  const where =
    d.given === 'context' ? '--context: ' : d.file ? `${d.file}${d.line ? `:${d.line}:${d.column ?? 1}` : ''}: ` : '';
  const state = d.state ? `state "${d.state}": ` : '';
  const fix = d.fix ? `\n    fix: ${d.fix}` : '';
  return `${where}${d.severity}: ${state}${d.message}${fix}`;
}

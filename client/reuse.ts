/**
 * Reuse at load time: `from:` inheritance, `import:` fragment libraries, inline `fragments:` and
 * `fragment:` on states. Reads the files involved; the merging itself is pure (fsm/).
 *
 * PLACEHOLDER: being written; until then the document is returned unchanged.
 */
import type { Diagnostic } from '../fsm/diagnostics.js';

export interface ReuseOutput {
  raw?: Record<string, unknown>;
  diagnostics: Diagnostic[];
}

/** Expand `from:`, `import:`, `fragments:` and `fragment:` in the document read from `file`. */
export function expandReuse(raw: Record<string, unknown>, file: string, cwd: string): ReuseOutput {
  void file;
  void cwd;
  return { raw, diagnostics: [] };
}

/**
 * The `loadSubloop` activity: a sub-loop state's child definition, read on the worker when the
 * state runs (the workflow never reads files). The name resolves like `ll-loop run <name>`:
 * `.loops/<name>.yaml` in the run's directory, a path, then the built-in catalog.
 */
import { formatDiagnostic } from '../fsm/diagnostics.js';
import type { LoopDefinition } from '../fsm/schema.js';
import { LoadError } from '../loader/errors.js';
import { loadLoop } from '../loader/load.js';

export interface LoadSubloopInput {
  name: string;
  cwd: string;
}

/** Never throws for a bad child: the reason comes back for the parent to route as `error`. */
export async function loadSubloop(
  input: LoadSubloopInput,
): Promise<{ definition: LoopDefinition; file: string } | { error: string }> {
  try {
    const loaded = loadLoop(input.name, input.cwd);
    if (loaded.definition) return { definition: loaded.definition, file: loaded.file };
    const errors = loaded.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
    return { error: `sub-loop "${input.name}" is not valid: ${errors.join('; ')}` };
  } catch (err) {
    if (err instanceof LoadError) return { error: err.fix ? `${err.message} (${err.fix})` : err.message };
    throw err;
  }
}

/** Load a loop for a command that only reads it (`simulate`, `test`): an invalid file is exit 1. */
import type { LoopDefinition } from '../../fsm/schema.js';
import { loadLoop, parseContextArgs } from '../../loader/load.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { printDiagnostics } from '../../reporters/diagnostics.js';
import { refusalOf } from '../../fsm/diagnostics.js';

export interface ValidLoop {
  file: string;
  definition: LoopDefinition;
}

/**
 * The loop `target` names, with `--context` applied, validated as `run` does. Diagnostics are
 * printed (stderr, or JSON on stdout) and a CliError says nothing ran when the file is invalid.
 */
export function loadValidLoop(
  target: string,
  cwd: string,
  context: readonly string[],
  json: boolean,
  out: (t: string) => void,
  err: (t: string) => void,
  what: string,
): ValidLoop {
  const loaded = loadLoop(target, cwd, { context: parseContextArgs(context) });
  if (!loaded.definition) {
    printDiagnostics(loaded.diagnostics, json, out, err);
    throw new CliError(
      `${refusalOf(loaded.file, loaded.diagnostics)}; nothing was ${what}`,
      'fix the errors above (ll-loop validate shows them), then try again',
      EXIT.usage,
    );
  }
  return { file: loaded.file, definition: loaded.definition };
}

/**
 * Writing a created loop. Invariant: a file is only ever written after the same bytes were loaded
 * through `loadLoopFile` (what `ll-loop validate` and `ll-loop run` use) without errors, and an
 * existing loop is only replaced when the caller says so. The text is first written to a hidden
 * temporary file next to the target and renamed into place, so a reader never sees half a file.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { formatDiagnostic, type Diagnostic } from '../../fsm/diagnostics.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { loadLoopFile } from '../../loader/load.js';
import { existingLoopFile, loopFilePath } from './answers.js';

/** The generated YAML does not load cleanly; nothing was written. */
export class InvalidLoopError extends CliError {
  override readonly name = 'InvalidLoopError';
  constructor(
    readonly diagnostics: Diagnostic[],
    file: string,
  ) {
    super(
      `the loop for ${file} does not validate, so it was not written:\n${diagnostics.map((d) => `  ${formatDiagnostic(d)}`).join('\n')}`,
      'change the answer the error names (a literal shell ${…} is written $${…}), then create it again',
      EXIT.usage,
    );
  }
}

/** `.loops/<name>.yaml` exists and overwriting was not allowed. */
export class LoopExistsError extends CliError {
  override readonly name = 'LoopExistsError';
  constructor(readonly file: string) {
    super(
      `${file} already exists; nothing was written`,
      'choose another --name, or pass --force to replace it',
      EXIT.usage,
    );
  }
}

/**
 * Load `yaml` as if it were `shownAs`, from a temporary file in `dir`. Diagnostics name
 * `shownAs`. Returns the diagnostics when it does not load; the temporary file is kept on
 * success only when `keep` (the caller renames it).
 */
function loadAs(
  yaml: string,
  dir: string,
  shownAs: string,
  cwd: string,
  keep: boolean,
): { temp: string; errors?: Diagnostic[] } {
  const temp = join(dir, `.${process.pid}-${Date.now()}.create.tmp`);
  writeFileSync(temp, yaml, { mode: 0o644 });
  let ok = false;
  try {
    const loaded = loadLoopFile(temp, {}, cwd);
    if (!loaded.definition)
      return { temp, errors: loaded.diagnostics.map((d) => (d.file === temp ? { ...d, file: shownAs } : d)) };
    ok = true;
    return { temp };
  } finally {
    if (!ok || !keep) rmSync(temp, { force: true });
  }
}

/** Check that `yaml` would load as `.loops/<name>.yaml` without writing into the project. */
export function checkLoopText(yaml: string, cwd: string, name: string): Diagnostic[] | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'll-loop-create-'));
  try {
    return loadAs(yaml, dir, relative(cwd, loopFilePath(cwd, name)), cwd, false).errors;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Write `.loops/<name>.yaml` (creating `.loops/`). Throws LoopExistsError (an existing .yaml or
 * .yml, unless `overwrite`) or InvalidLoopError (nothing written). Returns the file written.
 */
export function saveLoop(yaml: string, cwd: string, name: string, overwrite: boolean): string {
  const file = loopFilePath(cwd, name);
  const shown = relative(cwd, file);
  const existing = existingLoopFile(cwd, name);
  if (existing && !overwrite) throw new LoopExistsError(relative(cwd, existing));
  mkdirSync(dirname(file), { recursive: true });
  const { temp, errors } = loadAs(yaml, dirname(file), shown, cwd, true);
  if (errors) throw new InvalidLoopError(errors, shown);
  renameSync(temp, file);
  // A replaced `<name>.yml` would otherwise shadow nothing but confuse: `.yaml` wins resolution,
  // and two files for one name is a trap; remove the old one.
  if (existing && existing !== file) rmSync(existing, { force: true });
  return file;
}

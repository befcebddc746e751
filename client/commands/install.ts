/**
 * `ll-loop install <name> [--as <new-name>] [--force] [--json]`: copy a built-in loop into
 * `.loops/`, where the project can edit it. The copy then takes precedence over the built-in.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isMap, isPair, isScalar, parse, parseDocument, stringify } from 'yaml';
import { didYouMean } from '../../fsm/suggest.js';
import { bool, str, type CommandSpec } from '../command-table.js';
import { builtinLoopFile, builtinLoopNames, isLoopName } from '../../loader/catalog.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { loopsDir, projectLoopCopy } from '../../loader/load.js';
import { table } from '../../reporters/table.js';

export interface InstallOptions {
  cwd: string;
  /** The built-in loop to copy. */
  name: string;
  /** Install under this name instead (the copy's `name:` is changed to match). */
  as?: string;
  force: boolean;
  json: boolean;
  out: (text: string) => void;
}

/** What `install` did (the `--json` output). */
export interface InstallResult {
  builtin: string;
  name: string;
  source: string;
  file: string;
  overwritten: boolean;
}

function unknownBuiltin(name: string): UsageError {
  const names = builtinLoopNames();
  const listing = names.length ? `built-in loops: ${names.join(', ')}` : 'this installation has no built-in loops';
  return new UsageError(
    `no built-in loop named "${name}"${didYouMean(name, names)}; ${listing}`,
    'll-loop list --builtin shows them with their descriptions',
  );
}

/** `text` with its top-level `name:` value replaced, everything else (comments, layout) kept. */
function renamed(text: string, source: string, name: string): string {
  const doc = parseDocument(text, { version: '1.2' });
  const pair = isMap(doc.contents)
    ? doc.contents.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === 'name')
    : undefined;
  const range = pair && isScalar(pair.value) ? pair.value.range : undefined;
  if (!range)
    throw new CliError(
      `built-in loop ${source} has no top-level name: to rename`,
      'reinstall ll-loop; install it without --as',
    );
  return `${text.slice(0, range[0])}${stringify(name).trimEnd()}${text.slice(range[1])}`;
}

/** Copy the built-in; throws UsageError for an unknown name, a bad --as, or an existing file without --force. */
export function installLoop(opts: Omit<InstallOptions, 'json' | 'out'>): InstallResult {
  const source = builtinLoopFile(opts.name);
  if (!source) throw unknownBuiltin(opts.name);
  const name = opts.as ?? opts.name;
  if (!isLoopName(name)) {
    throw new UsageError(
      `--as "${name}" is not a loop name`,
      'use letters, digits, ".", "-" and "_", starting with a letter or digit, without .yaml (e.g. --as my-tests)',
    );
  }
  const existing = projectLoopCopy(opts.cwd, name);
  const shown = (f: string) => relative(opts.cwd, f) || f;
  const refuse = (file: string) =>
    new UsageError(
      `${shown(file)} already exists`,
      `pass --force to overwrite it, or --as <new-name> to install the copy under another name (ll-loop install ${opts.name} --as my-${opts.name})`,
    );
  if (existing && !opts.force) throw refuse(existing);
  const text = readFileSync(source, 'utf8');
  const provenance = `# Installed from the built-in loop ${opts.name} by ll-loop install; edit it freely.\n`;
  const content = provenance + (name === opts.name ? text : renamed(text, source, name));
  const file = existing ?? join(loopsDir(opts.cwd), `${name}.yaml`);
  const cannotWrite = (err: unknown) =>
    new UsageError(
      `cannot write ${shown(file)}: ${(err as Error).message}`,
      `check that ${shown(loopsDir(opts.cwd))}/ is a writable directory`,
    );
  try {
    mkdirSync(loopsDir(opts.cwd), { recursive: true });
  } catch (err) {
    throw cannotWrite(err);
  }
  try {
    // Without --force the file is created exclusively: a file that appeared meanwhile is not overwritten.
    writeFileSync(file, content, { flag: existing ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw refuse(file);
    throw cannotWrite(err);
  }
  return { builtin: opts.name, name, source, file, overwritten: existing !== undefined };
}

/** The declared parameters of a loop file, for the "how to run it" lines. */
function parameterRows(text: string): string[][] {
  const raw = parse(text, { version: '1.2' }) as {
    parameters?: Record<string, { default?: unknown; description?: string; required?: boolean }>;
  } | null;
  return Object.entries(raw?.parameters ?? {}).map(([key, spec]) => [
    `  ${key}`,
    spec.default !== undefined ? `default ${JSON.stringify(spec.default)}` : spec.required ? 'required' : 'optional',
    spec.description ?? '',
  ]);
}

/** `ll-loop install`. Returns the exit code. */
export function installCommand(opts: InstallOptions): number {
  const result = installLoop(opts);
  if (opts.json) {
    opts.out(`${JSON.stringify(result, null, 2)}\n`);
    return EXIT.ok;
  }
  const file = relative(opts.cwd, result.file) || result.file;
  const copy =
    result.name === result.builtin
      ? `the built-in ${result.builtin}`
      : `the built-in ${result.builtin}, renamed ${result.name}`;
  opts.out(`${result.overwritten ? 'overwrote' : 'wrote'} ${file} (${copy})\n`);
  if (builtinLoopFile(result.name))
    opts.out(`it now takes precedence over the built-in ${result.name}; edit it freely\n`);
  const rows = parameterRows(readFileSync(result.file, 'utf8'));
  const first = rows[0]?.[0]?.trim();
  opts.out(`run it:   ll-loop run ${result.name}${first ? `   (set a parameter: --context ${first}=VALUE)` : ''}\n`);
  opts.out(`check it: ll-loop validate ${result.name}\n`);
  if (rows.length) opts.out(`parameters:\n${table(rows)}`);
  return EXIT.ok;
}

/** `ll-loop install` in the command table. */
export const installSpec: CommandSpec = {
  usage: 'install <name> [--as <new-name>] [--force] [--json]   copy a built-in loop into .loops/',
  flags: { as: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } },
  run(ctx) {
    const [name, ...extra] = ctx.positionals;
    if (name === undefined)
      throw new UsageError(
        'install needs the name of a built-in loop',
        'll-loop install <name>; ll-loop list --builtin lists them',
      );
    if (extra.length)
      throw new UsageError(
        `unexpected arguments: ${extra.join(' ')}`,
        'll-loop install <name> [--as <new-name>] [--force]',
      );
    const as = str(ctx, 'as');
    return installCommand({
      cwd: ctx.cwd,
      name,
      force: bool(ctx, 'force'),
      json: bool(ctx, 'json'),
      out: ctx.out,
      ...(as === undefined ? {} : { as }),
    });
  },
};

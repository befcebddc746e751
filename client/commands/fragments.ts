/**
 * `ll-loop fragments <lib> [--json]`: the fragments a library file defines (docs/reuse.md), each
 * with its description and the state fields it gives. `<lib>` is found as `import:` finds it: a
 * path, else relative to `.loops/`, else among the built-in loops (`lib/common.yaml`), the
 * `.yaml` extension optional.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { bool, type CommandSpec } from '../command-table.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { BUILTIN_LOOPS_DIR } from '../../loader/catalog.js';
import { display, readSource, resolveReference } from '../../loader/reuse-files.js';
import { fragmentsBlockProblems } from '../../fsm/definition/fragments.js';
import { didYouMean } from '../../fsm/suggest.js';
import { table } from '../../reporters/table.js';

/** One fragment as listed. */
export interface FragmentListing {
  name: string;
  description: string | null;
  /** The state fields it gives (its keys but `description`). */
  fields: string[];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The library files under `lib/` of `.loops/` and of the built-in loops, as `import:` names them. */
function knownLibraries(cwd: string): string[] {
  const names = new Set<string>();
  for (const dir of [join(cwd, '.loops', 'lib'), join(BUILTIN_LOOPS_DIR, 'lib')]) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) if (/\.ya?ml$/i.test(f)) names.add(`lib/${f}`);
  }
  return [...names].sort();
}

/** The file `lib` names: a path (from the project root, or as typed), else as `import:` finds it. */
export function libraryFile(lib: string, cwd: string): string {
  const direct = isAbsolute(lib) ? lib : resolve(cwd, lib);
  if (isFile(direct)) return direct;
  const found = resolveReference(lib, join(cwd, '.loops', '.fragments'), cwd).file;
  if (found) return found;
  const known = knownLibraries(cwd);
  throw new UsageError(
    `no fragment library "${lib}"${didYouMean(lib, known)}: looked for it as a path, in .loops/ and among the built-in loops`,
    known.length ? `give one of: ${known.join(', ')} (or a path to a library file)` : 'give the path of a library file',
  );
}

/** The fragments of the library at `file`, in its order; a CliError naming the file and line when it is none. */
export function libraryFragments(file: string, cwd: string): FragmentListing[] {
  const { source, diagnostics } = readSource(file);
  const where = display(file, cwd);
  if (!source) {
    const d = diagnostics[0];
    throw new CliError(
      `${where}${d?.line ? `:${d.line}` : ''}: ${d?.message ?? 'cannot be read'}`,
      'fix the file (ll-loop validate checks the loops that import it)',
      EXIT.usage,
    );
  }
  const raw = source.raw as { fragments?: unknown } | null;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || raw.fragments === undefined)
    throw new CliError(
      `${where} has no fragments: block, so it is no fragment library`,
      'a library is a YAML mapping with fragments: { name: { description: …, <state fields> } } (docs/reuse.md)',
      EXIT.usage,
    );
  const problem = fragmentsBlockProblems(raw.fragments)[0];
  if (problem) {
    const at = source.position(problem.path);
    throw new CliError(`${where}${at ? `:${at.line}` : ''}: ${problem.message}`, problem.fix, EXIT.usage);
  }
  return Object.entries(raw.fragments as Record<string, Record<string, unknown>>).map(([name, body]) => ({
    name,
    description: typeof body.description === 'string' ? body.description : null,
    fields: Object.keys(body).filter((k) => k !== 'description'),
  }));
}

/** `ll-loop fragments` in the command table. */
export const fragmentsSpec: CommandSpec = {
  usage:
    'fragments <lib> [--json]   the fragments a library file defines (e.g. lib/common.yaml), with their descriptions',
  flags: { json: { type: 'boolean' } },
  run(ctx) {
    const [lib, ...extra] = ctx.positionals;
    if (lib === undefined)
      throw new UsageError('fragments needs a library file', 'e.g. ll-loop fragments lib/common.yaml');
    if (extra.length > 0)
      throw new UsageError(
        `unexpected arguments: ${extra.join(' ')}`,
        'give one library: ll-loop fragments lib/common.yaml',
      );
    const file = libraryFile(lib, ctx.cwd);
    const fragments = libraryFragments(file, ctx.cwd);
    if (bool(ctx, 'json')) {
      ctx.out(`${JSON.stringify({ file, fragments }, null, 2)}\n`);
      return EXIT.ok;
    }
    const where = file.startsWith(BUILTIN_LOOPS_DIR)
      ? `${display(file, BUILTIN_LOOPS_DIR)} (built-in)`
      : display(file, ctx.cwd);
    ctx.out(`${where}: ${fragments.length} fragment${fragments.length === 1 ? '' : 's'}\n`);
    if (fragments.length === 0) return EXIT.ok;
    const rows = fragments.map((f) => [f.name, f.fields.join(', ') || '-', f.description?.split('\n')[0] ?? '']);
    ctx.out(table([['NAME', 'GIVES', 'DESCRIPTION'], ...rows]));
    return EXIT.ok;
  },
};

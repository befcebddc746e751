/**
 * `ll-loop list --builtin [--category C] [--label L]… [--json]`: the loops shipped with the
 * package, and for each whether a project loop of the same name shadows it (names resolve to
 * `.loops/` first).
 */
import { relative } from 'node:path';
import { builtinLoopFile, builtinLoopNames } from '../../loader/catalog.js';
import { EXIT } from '../../errors/exit-codes.js';
import { loadLoopFile, projectLoopCopy } from '../../loader/load.js';
import { table } from '../../reporters/table.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { LoopListing } from './list-tables.js';
import { hiddenNote, shown, visibilityOf, type Visibility } from './list-visibility.js';

type ParameterSpec = NonNullable<LoopDefinition['parameters']>[string];

/** One built-in loop as `list --builtin` shows it: a listing like `list`'s, with its parameters. */
interface BuiltinListing extends LoopListing {
  parameters: Record<string, ParameterSpec>;
  /** A project loop of the same name runs instead of this one. */
  shadowed: boolean;
  /** That project loop's file. */
  project_file?: string;
}

/** Every built-in loop, with whether `cwd`'s `.loops/` shadows it. */
function builtinListings(cwd: string): BuiltinListing[] {
  return builtinLoopNames().map((name) => {
    const file = builtinLoopFile(name)!;
    const projectFile = projectLoopCopy(cwd, name);
    const shadow = projectFile === undefined ? { shadowed: false } : { shadowed: true, project_file: projectFile };
    const loaded = loadLoopFile(file, {}, cwd);
    const def = loaded.definition;
    if (!def) {
      const first = loaded.diagnostics.find((d) => d.severity === 'error');
      return {
        name,
        file,
        valid: false,
        labels: [],
        parameters: {},
        ...shadow,
        error: first?.message ?? 'invalid loop',
      };
    }
    return {
      name,
      file,
      valid: true,
      ...(def.description === undefined ? {} : { description: def.description }),
      ...(def.category === undefined ? {} : { category: def.category }),
      labels: def.labels,
      visibility: visibilityOf(def),
      parameters: def.parameters ?? {},
      ...shadow,
    };
  });
}

export interface BuiltinListOptions {
  cwd: string;
  json: boolean;
  category?: string;
  labels?: string[];
  visibility?: Visibility;
  out: (text: string) => void;
}

/** Print the built-ins as a table or `--json`. Returns the exit code. */
export function printBuiltins(opts: BuiltinListOptions): number {
  const labels = opts.labels ?? [];
  const wanted = opts.visibility ?? 'public';
  const matching = builtinListings(opts.cwd).filter(
    (l) =>
      (opts.category === undefined || l.category === opts.category) &&
      labels.every((label) => l.labels.includes(label)),
  );
  const loops = matching.filter((l) => !l.valid || shown(l.visibility, wanted));
  if (opts.json) {
    opts.out(`${JSON.stringify(loops, null, 2)}\n`);
    return EXIT.ok;
  }
  if (loops.length === 0) {
    opts.out(
      opts.category !== undefined || labels.length > 0 || opts.visibility !== undefined
        ? 'no built-in loops match\n'
        : 'this installation has no built-in loops\n',
    );
    return EXIT.ok;
  }
  const rows = loops.map((l) => [
    l.name,
    l.valid ? (l.category ?? '-') : 'invalid',
    l.project_file === undefined ? '-' : relative(opts.cwd, l.project_file),
    l.valid ? (l.description?.split('\n')[0] ?? '') : (l.error ?? ''),
  ]);
  opts.out(table([['NAME', 'CATEGORY', 'SHADOWED BY', 'DESCRIPTION'], ...rows]));
  opts.out(hiddenNote(matching.length - loops.length, wanted, opts.visibility !== undefined));
  opts.out(
    'run one as is: ll-loop run <name> [--context param=value]; copy one into .loops/ to edit it: ll-loop install <name>\n',
  );
  if (loops.some((l) => l.shadowed))
    opts.out('a shadowed built-in does not run by its name: the loop in .loops/ does\n');
  return EXIT.ok;
}

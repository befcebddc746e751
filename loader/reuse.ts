/**
 * Reuse at load time: `from:` inheritance, `import:` fragment libraries, inline `fragments:` and
 * `fragment:` on states (docs/reuse.md). Reads the files involved; the merging itself is pure
 * (fsm/definition/merge.ts, fsm/definition/fragments.ts). Every problem is a diagnostic naming the file at fault; a
 * diagnostic of the loaded file itself carries no `file`, so the loader places it.
 */
import { error, hasErrors, warning, type Diagnostic } from '../fsm/diagnostics.js';
import {
  addFragments,
  composeLoop,
  fragmentsBlockProblems,
  importListProblems,
  type Composed,
  type FragmentTable,
} from '../fsm/definition/fragments.js';
import { isPlainObject, valueAt, type PlainObject } from '../fsm/definition/merge.js';
import { REUSE_LOOP_KEYS, REUSE_STATE_KEYS } from '../fsm/schema.js';
import { didYouMean } from '../fsm/suggest.js';
import {
  dirLabel,
  display,
  identity,
  inFile,
  knownReferences,
  readSource,
  resolveReference,
  searchDirs,
  type SourceFile,
} from './reuse-files.js';

export interface ReuseOutput {
  raw?: Record<string, unknown>;
  diagnostics: Diagnostic[];
  /**
   * Points a later diagnostic (validation of the composed document) at the file its path came
   * from: the most derived layer that defines it, or the fragment that supplied it.
   */
  locate?: (d: Diagnostic) => Diagnostic;
}

/** One document of the `from:` chain; `root` is the file being loaded. */
interface Layer {
  source: SourceFile;
  raw: PlainObject;
  root: boolean;
}

/** Whether the document has anything to expand; a plain loop passes through untouched. */
function usesReuse(raw: PlainObject): boolean {
  if (REUSE_LOOP_KEYS.some((key) => Object.hasOwn(raw, key))) return true;
  return (
    isPlainObject(raw.states) &&
    Object.values(raw.states).some((s) => isPlainObject(s) && REUSE_STATE_KEYS.some((key) => Object.hasOwn(s, key)))
  );
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string' && value.trim() === '') return 'an empty string';
  return `a ${typeof value}`;
}

class Reuse {
  readonly diagnostics: Diagnostic[] = [];
  private readonly libraries = new Map<string, SourceFile | undefined>();

  constructor(private readonly cwd: string) {}

  /** The diagnostic placed in `layer`'s file (the loaded file's own are placed by the loader). */
  at(d: Diagnostic, layer: Pick<Layer, 'source' | 'root'>): Diagnostic {
    return layer.root ? d : inFile(d, layer.source);
  }

  private show(file: string): string {
    return display(file, this.cwd);
  }

  private where(fromFile: string): string {
    return searchDirs(fromFile, this.cwd)
      .map((dir) => dirLabel(dir, this.cwd))
      .join(', ');
  }

  /** Reads a file another one refers to; its problems say `why` it was read. */
  private readReferenced(file: string, why: string): SourceFile | undefined {
    const { source, diagnostics } = readSource(file);
    this.diagnostics.push(...diagnostics.map((d) => ({ ...d, message: `${d.message} (${why})` })));
    return source;
  }

  /** The loaded file and its `from:` ancestors, loaded file first; undefined when the chain is broken. */
  chain(root: Layer): Layer[] | undefined {
    const layers = [root];
    for (let child = root; child.raw.from !== undefined && child.raw.from !== null;) {
      const ref = child.raw.from;
      const names = () => layers.map((l) => this.show(l.source.file));
      if (typeof ref !== 'string' || ref.trim() === '') {
        this.diagnostics.push(
          this.at(
            error(
              ['from'],
              `from: must name a parent loop file, but it is ${kindOf(ref)}`,
              'write from: lib/base (a path relative to this file, or a loop name in .loops/)',
            ),
            child,
          ),
        );
        return undefined;
      }
      const found = resolveReference(ref, child.source.file, this.cwd);
      if (!found.file) {
        const via = layers.length > 1 ? ` (inheritance chain: ${names().join(' → ')} → ${ref})` : '';
        const known = knownReferences(child.source.file, this.cwd);
        this.diagnostics.push(
          this.at(
            error(
              ['from'],
              `parent loop "${ref}" not found${didYouMean(ref, known.names)}${via}; looked in ${this.where(child.source.file)} (.yaml/.yml may be omitted${found.skippedSelf ? '; a file is never its own parent' : ''}); ${known.text}`,
              `create ${ref}.yaml next to this file or in .loops/, or correct from:`,
            ),
            child,
          ),
        );
        return undefined;
      }
      const id = identity(found.file);
      if (layers.some((l) => l.source.id === id)) {
        const cycle = [...names(), this.show(found.file)].join(' → ');
        this.diagnostics.push(
          this.at(
            error(['from'], `inheritance cycle: ${cycle}`, 'remove from: from one of these files so the chain ends'),
            child,
          ),
        );
        return undefined;
      }
      const source = this.readReferenced(found.file, `parent of ${this.show(child.source.file)} through from:`);
      if (!source) return undefined;
      if (!isPlainObject(source.raw)) {
        this.diagnostics.push(
          inFile(
            error(
              [],
              `a parent loop must be a mapping of loop fields, but this file is ${kindOf(source.raw)} (parent of ${this.show(child.source.file)} through from:)`,
              'write the shared fields (context:, states: …) as a mapping',
            ),
            source,
          ),
        );
        return undefined;
      }
      child = { source, raw: source.raw, root: false };
      layers.push(child);
    }
    return layers;
  }

  /** A library file named in `import:`, read once however often it is imported. */
  private library(ref: string, index: number, layer: Layer): SourceFile | undefined {
    const found = resolveReference(ref, layer.source.file, this.cwd);
    if (!found.file) {
      this.diagnostics.push(
        this.at(
          error(
            ['import', index],
            `fragment library "${ref}" not found; looked in ${this.where(layer.source.file)} (.yaml/.yml may be omitted)`,
            "correct the path (it is relative to this file's directory) or create the library",
          ),
          layer,
        ),
      );
      return undefined;
    }
    const id = identity(found.file);
    if (this.libraries.has(id)) return this.libraries.get(id);
    const source = this.readReferenced(found.file, `imported by ${this.show(layer.source.file)}`);
    this.libraries.set(id, source && this.checkLibrary(source) ? source : undefined);
    return this.libraries.get(id);
  }

  private checkLibrary(source: SourceFile): boolean {
    const lib = source.raw;
    const example =
      'add fragments: with named partial states, e.g. fragments: { shell_check: { evaluate: { type: exit_code } } }';
    if (!isPlainObject(lib)) {
      this.diagnostics.push(
        inFile(
          error([], `a fragment library must be a mapping with fragments:, but this file is ${kindOf(lib)}`, example),
          source,
        ),
      );
      return false;
    }
    if (!isPlainObject(lib.fragments) || Object.keys(lib.fragments).length === 0) {
      const path = Object.hasOwn(lib, 'fragments') ? ['fragments'] : [];
      const problems =
        lib.fragments === undefined || lib.fragments === null || isPlainObject(lib.fragments)
          ? [error(path, 'this fragment library has no fragments', example)]
          : fragmentsBlockProblems(lib.fragments);
      this.diagnostics.push(...problems.map((d) => inFile(d, source)));
      return false;
    }
    for (const key of ['from', 'import'] as const) {
      if (lib[key] !== undefined) {
        this.diagnostics.push(
          inFile(
            warning(
              [key],
              `${key}: in a fragment library is not followed; only its fragments: are used`,
              `list the files it names in the loop's own import:`,
            ),
            source,
          ),
        );
      }
    }
    const problems = fragmentsBlockProblems(lib.fragments);
    this.diagnostics.push(...problems.map((d) => inFile(d, source)));
    return true;
  }

  /**
   * The fragments visible to the composed loop. Priority, lowest first: for each layer from the
   * root of the chain to the loaded file, its imported libraries, then its inline `fragments:`.
   * Two libraries of one `import:` list defining the same name is an error (which one wins would
   * hang on list order) unless that file's inline `fragments:` defines the name itself.
   */
  fragments(layers: readonly Layer[]): FragmentTable<Layer> {
    const table: FragmentTable<Layer> = new Map();
    for (const layer of layers) {
      const inline = layer.raw.fragments;
      const imports = layer.raw.import;
      if (imports !== undefined && imports !== null) {
        this.diagnostics.push(...importListProblems(imports).map((d) => this.at(d, layer)));
        if (Array.isArray(imports)) this.importInto(table, imports, layer, isPlainObject(inline) ? inline : {});
      }
      if (inline !== undefined && inline !== null) {
        this.diagnostics.push(...fragmentsBlockProblems(inline).map((d) => this.at(d, layer)));
        addFragments(table, inline, layer);
      }
    }
    return table;
  }

  private importInto(
    table: FragmentTable<Layer>,
    imports: readonly unknown[],
    layer: Layer,
    inline: PlainObject,
  ): void {
    const definedBy = new Map<string, SourceFile>();
    imports.forEach((ref, i) => {
      if (typeof ref !== 'string' || ref.trim() === '') return;
      const lib = this.library(ref, i, layer);
      if (!lib) return;
      const fragments = (lib.raw as PlainObject).fragments as PlainObject;
      for (const name of Object.keys(fragments)) {
        const earlier = definedBy.get(name);
        if (earlier && earlier.id !== lib.id && !Object.hasOwn(inline, name)) {
          this.diagnostics.push(
            this.at(
              error(
                ['import', i],
                `fragment "${name}" is defined in both ${this.show(earlier.file)} and ${this.show(lib.file)}`,
                `rename it in one of the libraries, or define ${name} under this file's fragments: (inline fragments win over imported ones)`,
              ),
              layer,
            ),
          );
        }
        definedBy.set(name, lib);
      }
      addFragments(table, fragments, { source: lib, raw: lib.raw as PlainObject, root: false });
    });
  }

  /** See ReuseOutput.locate. `layers` is loaded file first. */
  locator(layers: readonly Layer[], composed: Composed<Layer>): (d: Diagnostic) => Diagnostic {
    return (d) => {
      if (d.file !== undefined) return d;
      const owner = layers.find((l) => valueAt(l.raw, d.path) !== undefined);
      if (owner) return this.at(d, owner);
      // Not written in any layer: the value came from the fragment the state uses.
      const [head, state, ...rest] = d.path;
      const fragment =
        head === 'states' && typeof state === 'string' && rest.length ? composed.applied.get(state) : undefined;
      if (fragment && valueAt(fragment.body, rest) !== undefined) {
        const { source } = fragment.origin;
        return { ...d, file: source.file, ...source.position(['fragments', fragment.name, ...rest]) };
      }
      return d;
    };
  }
}

/** The loaded file as a layer; its positions (needed only for its inline fragments) are read on demand. */
function rootLayer(raw: PlainObject, file: string): Layer {
  let position: SourceFile['position'] | undefined;
  const source: SourceFile = {
    file,
    id: identity(file),
    raw,
    position: (path) => {
      position ??= readSource(file).source?.position ?? (() => undefined);
      return position(path);
    },
  };
  return { source, raw, root: true };
}

/**
 * Parameters the loaded file declares that no loop it inherits from declares and nothing reads
 * (`${context.<name>}` nowhere in the composed loop): most often a misspelt override of an
 * inherited one (`test_cmnd:` for `test_cmd:`), whose value the run would never use while the
 * inherited default runs instead.
 */
function unreadParameters(layers: readonly Layer[], composed: PlainObject, cwd: string): Diagnostic[] {
  const own = layers[0]?.raw.parameters;
  if (!isPlainObject(own)) return [];
  const inherited = new Set<string>();
  for (const layer of layers.slice(1))
    if (isPlainObject(layer.raw.parameters)) for (const name of Object.keys(layer.raw.parameters)) inherited.add(name);
  if (inherited.size === 0) return [];
  const { parameters: _declared, ...rest } = composed;
  const text = JSON.stringify(rest);
  const from = typeof layers[0]!.raw.from === 'string' ? layers[0]!.raw.from : display(layers[1]!.source.file, cwd);
  return Object.keys(own)
    .filter((name) => !inherited.has(name) && !new RegExp(`context\\.${escapeRegExp(name)}\\b`).test(text))
    .map((name) =>
      warning(
        ['parameters', name],
        `parameter "${name}" is not one that ${from} (from:) declares, and nothing reads it${didYouMean(name, [...inherited])}: the run would not use its value`,
        `rename it to the inherited parameter it overrides (${[...inherited].join(', ')}), or use \${context.${name}} in a state`,
      ),
    );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Expand `from:`, `import:`, `fragments:` and `fragment:` in the document read from `file`. */
export function expandReuse(raw: Record<string, unknown>, file: string, cwd: string): ReuseOutput {
  if (!usesReuse(raw)) return { raw, diagnostics: [] };
  const reuse = new Reuse(cwd);
  const root = rootLayer(raw, file);
  const layers = reuse.chain(root);
  if (!layers) return { diagnostics: reuse.diagnostics };
  const baseFirst = [...layers].reverse();
  const table = reuse.fragments(baseFirst);
  if (hasErrors(reuse.diagnostics)) return { diagnostics: reuse.diagnostics };
  const composed = composeLoop(
    baseFirst.map((l) => l.raw),
    table,
  );
  reuse.diagnostics.push(...composed.findings.map((f) => reuse.at(f.diagnostic, baseFirst[f.layer]!)));
  const namer = layers.slice(1).find((l) => typeof l.raw.name === 'string');
  if (namer && raw.name === undefined) {
    reuse.diagnostics.push(
      warning(
        ['from'],
        `name: "${String(namer.raw.name)}" is inherited from ${display(namer.source.file, cwd)}, so this loop shares that name`,
        'add name: to this file',
      ),
    );
  }
  reuse.diagnostics.push(...unreadParameters(layers, composed.raw, cwd));
  if (hasErrors(reuse.diagnostics)) return { diagnostics: reuse.diagnostics };
  return { raw: composed.raw, diagnostics: reuse.diagnostics, locate: reuse.locator(layers, composed) };
}

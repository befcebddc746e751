/**
 * The files behind `from:` and `import:`: where a reference resolves, reading a file as YAML with
 * positions, and pointing a diagnostic at a line and column of that file.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { yamlValue } from './yaml-value.js';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { error, type Diagnostic } from '../fsm/diagnostics.js';
import { BUILTIN_LOOPS_DIR } from './catalog.js';

/** A file read for reuse: its parsed value and a way to find a path's line and column in it. */
export interface SourceFile {
  /** Absolute path, as it appears in diagnostics. */
  file: string;
  /** Identity for cycle detection: the real path, so symlinks and `a/../b` do not hide a cycle. */
  id: string;
  raw: unknown;
  position(path: Diagnostic['path']): { line: number; column: number } | undefined;
}

/** The directories a reference made from `fromFile` is looked up in, in order. */
export function searchDirs(fromFile: string, cwd: string): string[] {
  return [...new Set([dirname(fromFile), join(cwd, '.loops'), BUILTIN_LOOPS_DIR])];
}

/** The file names tried for `ref` in a directory: the `.yaml`/`.yml` extension may be omitted. */
function fileNames(ref: string): string[] {
  return /\.ya?ml$/i.test(ref) ? [ref] : [`${ref}.yaml`, `${ref}.yml`, ref];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The file `ref` names, looked up relative to `fromFile`'s directory, then `.loops/`, then the
 * built-in loops. `fromFile` itself is passed over (`skippedSelf`), so `.loops/fix-lint.yaml`
 * can say `from: fix-lint` to build on the built-in loop of the same name.
 */
export function resolveReference(ref: string, fromFile: string, cwd: string): { file?: string; skippedSelf: boolean } {
  const dirs = isAbsolute(ref) ? [''] : searchDirs(fromFile, cwd);
  const self = identity(fromFile);
  const existing = dirs.flatMap((dir) => fileNames(ref).map((name) => (dir ? join(dir, name) : name))).filter(isFile);
  const file = existing.find((candidate) => identity(candidate) !== self);
  return { ...(file ? { file } : {}), skippedSelf: existing.some((candidate) => identity(candidate) === self) };
}

/** Loop names (files ending in .yaml/.yml, without it) in `dir` except `except`, sorted; none when it is unreadable. */
function loopNamesIn(dir: string, except: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const files = entries.filter((f) => /\.ya?ml$/i.test(f) && isFile(join(dir, f)) && identity(join(dir, f)) !== except);
  return [...new Set(files.map((f) => f.replace(/\.ya?ml$/i, '')))].sort();
}

/** A search directory for messages: relative to the project, or "built-in" for the package's loops. */
export function dirLabel(dir: string, cwd: string): string {
  return dir === BUILTIN_LOOPS_DIR ? 'built-in' : `${display(dir, cwd)}/`;
}

/**
 * What a reference made from `fromFile` could name, directory by directory in lookup order, for
 * "not found" messages: `names` (each name once, first directory wins; never `fromFile` itself)
 * and a readable `text`.
 */
export function knownReferences(fromFile: string, cwd: string): { names: string[]; text: string } {
  const seen = new Set<string>();
  const parts: string[] = [];
  const self = identity(fromFile);
  for (const dir of searchDirs(fromFile, cwd)) {
    const names = loopNamesIn(dir, self).filter((n) => !seen.has(n));
    names.forEach((n) => seen.add(n));
    if (names.length) parts.push(`${dirLabel(dir, cwd)}: ${names.join(', ')}`);
  }
  return {
    names: [...seen],
    text: parts.length ? `known loops: ${parts.join('; ')}` : 'there are no loop files to inherit from',
  };
}

export function identity(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}

/** `file` relative to `cwd` when it is inside it, else absolute: for messages. */
export function display(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel) ? rel : file;
}

function positionOf(
  doc: Document,
  lines: LineCounter,
  path: Diagnostic['path'],
): { line: number; column: number } | undefined {
  let node: unknown = doc.contents;
  let offset: number | undefined = (doc.contents as { range?: [number] } | null)?.range?.[0];
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(key));
      if (!pair) break;
      offset = (pair.key as { range?: [number] }).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number' && node.items[key]) {
      node = node.items[key];
      offset = (node as { range?: [number] }).range?.[0] ?? offset;
    } else break;
  }
  if (offset === undefined) return undefined;
  const pos = lines.linePos(offset);
  return { line: pos.line, column: pos.col };
}

/** The diagnostic pointed at `source`'s file, at the line and column of its path. */
export function inFile(d: Diagnostic, source: Pick<SourceFile, 'file' | 'position'>): Diagnostic {
  return { ...d, file: source.file, ...source.position(d.path) };
}

/** Reads and parses `file` (YAML 1.2, as the loop loader does). Problems are diagnostics in that file. */
export function readSource(file: string): { source?: SourceFile; diagnostics: Diagnostic[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return {
      diagnostics: [
        { ...error([], `cannot read the file: ${(err as Error).message}`, 'check the path and its permissions'), file },
      ],
    };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, version: '1.2' });
  const parsed = yamlValue(doc, lines, file, text);
  if ('diagnostics' in parsed) return { diagnostics: parsed.diagnostics };
  const raw = parsed.value;
  return {
    source: { file, id: identity(file), raw, position: (path) => positionOf(doc, lines, path) },
    diagnostics: [],
  };
}

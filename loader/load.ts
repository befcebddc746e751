/**
 * Reading a loop file: resolve a name or path, parse YAML 1.2 with positions, apply the command
 * line's overrides, validate, and point every diagnostic at its file, line and column.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { ContextError, resolveContext } from '../fsm/definition/context.js';
import { setOwn } from '../fsm/definition/merge.js';
import { checkJsonSchemas } from './json-schema.js';
import { error, hasErrors, type Diagnostic } from '../fsm/diagnostics.js';
import type { LoopDefinition } from '../fsm/schema.js';
import { didYouMean } from '../fsm/suggest.js';
import { validateLoop } from '../fsm/definition/validate.js';
import { bindParameters, commandLineDataKeys } from '../fsm/definition/parameters.js';
import { compileParadigm } from '../fsm/definition/paradigms/index.js';
import { expandFlow, flowSourcePath } from '../fsm/definition/flow.js';
import { builtinLoopFile, builtinLoopNames } from './catalog.js';
import { LOAD_ERROR_KIND, LoadError } from './errors.js';
import { expandReuse } from './reuse.js';
import { payloadProblem } from './payload-limit.js';
import { checkScopes } from './scope-check.js';
import { checkSubloops } from './subloops.js';
import { yamlValue } from './yaml-value.js';
import { checkContextKeys, usedContextKeys } from './context-keys.js';
import { addRunContext } from './run-context.js';

export interface LoadOverrides {
  /** `--context KEY=VALUE`, already split. */
  context?: Record<string, string>;
  maxIterations?: number;
  /** `--max-steps N` (`-n`): the loop's `max_steps`. */
  maxSteps?: number;
  /** `--delay S`: the loop's `backoff` (seconds before each new pass). */
  backoff?: number;
  /** `--handoff-threshold N`: the loop's `config.handoff_threshold`. */
  handoffThreshold?: number;
  noLlm?: boolean;
  llmModel?: string;
  /** A run is about to start: required parameters must have values (`--context NAME=VALUE`). */
  requireParameters?: boolean;
  /**
   * Refuse (LoadError) `context` keys the loop does not use (loader/context-keys.ts): commands
   * that start a run set it unless `--context-allow-unknown` is given.
   */
  refuseUnusedContext?: boolean;
  /** Keys accepted even when unused: a resumed run's context from when it started. */
  acceptedContext?: readonly string[];
  /** A run starts from this load: give it `run_dir`/`input_hash` if it reads them (loader/run-context.ts). */
  runContext?: boolean;
  /**
   * A run continues from this load (`resume`): a `${context.KEY}` nothing gives is an error, as
   * for a start (`requireParameters` implies it; fsm/definition/unset-context.ts).
   */
  refuseUnsetContext?: boolean;
}

export interface LoadedLoop {
  file: string;
  definition?: LoopDefinition;
  /**
   * With `definition`: the context keys that are data in shell actions, the `--context` keys
   * given (except `command` parameters) and the context values built from them.
   */
  dataContext?: string[];
  diagnostics: Diagnostic[];
}

export function loopsDir(cwd: string): string {
  return join(cwd, '.loops');
}

/** The project's loop file named `name` (`.loops/<name>.yaml`, else `.yml`), if there is one. */
export function projectLoopCopy(cwd: string, name: string): string | undefined {
  return [`${name}.yaml`, `${name}.yml`].map((f) => join(loopsDir(cwd), f)).find((f) => existsSync(f));
}

/** Names of the loops in `.loops/` (files ending in .yaml or .yml). */
export function listLoopNames(cwd: string): string[] {
  const dir = loopsDir(cwd);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => f.replace(/\.ya?ml$/, ''))
    .sort();
}

/** The project's loop file for `nameOrPath` (a path, or `.loops/<name>.yaml`/.yml), if any. */
export function projectLoopFile(nameOrPath: string, cwd: string): string | undefined {
  const candidates = [
    resolve(cwd, nameOrPath),
    join(loopsDir(cwd), `${nameOrPath}.yaml`),
    join(loopsDir(cwd), `${nameOrPath}.yml`),
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** What `nameOrPath` could have meant, for "no loop named …" messages. */
export function knownLoopsText(cwd: string): { names: string[]; text: string } {
  const project = listLoopNames(cwd);
  const builtin = builtinLoopNames().filter((n) => !project.includes(n));
  const parts = [
    project.length
      ? `loops in ${relative(cwd, loopsDir(cwd)) || '.loops'}/: ${project.join(', ')}`
      : `there are no loops in ${loopsDir(cwd)}`,
    ...(builtin.length ? [`built-in: ${builtin.join(', ')}`] : []),
  ];
  return { names: [...project, ...builtin], text: parts.join('; ') };
}

/**
 * `.loops/<name>.yaml` (or .yml), a path to a file, or a built-in loop of that name.
 * Throws LoadError (`unknown-loop`) listing the loops.
 */
export function resolveLoopFile(nameOrPath: string, cwd: string): string {
  const found = projectLoopFile(nameOrPath, cwd) ?? builtinLoopFile(nameOrPath);
  if (found) return found;
  const known = knownLoopsText(cwd);
  // A path (a `/`, or a YAML file name) names that file: the name of a loop to create is no fix.
  if (/[/\\]/.test(nameOrPath) || /\.ya?ml$/i.test(nameOrPath))
    throw new LoadError(
      LOAD_ERROR_KIND.unknownLoop,
      `no loop file at ${nameOrPath} (${resolve(cwd, nameOrPath)} ${existsSync(resolve(cwd, nameOrPath)) ? 'is not a file' : 'does not exist'}); ${known.text}`,
      'check the path, or give a loop by its name (ll-loop list shows them)',
    );
  throw new LoadError(
    LOAD_ERROR_KIND.unknownLoop,
    `no loop named "${nameOrPath}"${didYouMean(nameOrPath, known.names)}; ${known.text}`,
    `create .loops/${basename(nameOrPath)}.yaml or pass a path to a loop file`,
  );
}

/** Parse `KEY=VALUE` pairs from `--context`. */
export function parseContextArgs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new LoadError(
        LOAD_ERROR_KIND.badContext,
        `--context "${pair}" is not KEY=VALUE`,
        'write --context name=value (use quotes for spaces)',
      );
    const key = pair.slice(0, at);
    // Plain assignment would set the prototype and drop the key silently; and no object on its
    // way to the run (the loop's schema, its context) could carry it as a key either.
    if (key === '__proto__')
      throw new LoadError(
        LOAD_ERROR_KIND.badContext,
        `--context "${pair}": "__proto__" cannot be a context key (JavaScript reserves the name)`,
        'give the value another key',
      );
    setOwn(out, key, pair.slice(at + 1));
  }
  return out;
}

/** Position of the key (or, for the document root, the start) a path points at. */
function positionOf(
  doc: Document,
  path: Diagnostic['path'],
  lines: LineCounter,
): { line: number; column: number } | undefined {
  let node: unknown = doc.contents;
  let offset: number | undefined = (doc.contents as { range?: [number] } | null)?.range?.[0];
  for (const key of path) {
    if (isSeq(node) && typeof key === 'number') {
      // A list item (e.g. `scope[1]`): point at the item itself.
      node = node.items[key];
      offset = (node as { range?: [number] } | undefined)?.range?.[0] ?? offset;
      continue;
    }
    if (!isMap(node)) break;
    const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(key));
    if (!pair) break;
    offset = (pair.key as { range?: [number] }).range?.[0] ?? offset;
    node = pair.value;
  }
  if (offset === undefined) return undefined;
  const pos = lines.linePos(offset);
  return { line: pos.line, column: pos.col };
}

function applyOverrides(raw: Record<string, unknown>, overrides: LoadOverrides): void {
  if (overrides.context && Object.keys(overrides.context).length) {
    const context = raw.context && typeof raw.context === 'object' ? (raw.context as Record<string, unknown>) : {};
    raw.context = { ...context, ...overrides.context };
  }
  if (overrides.maxIterations !== undefined) raw.max_iterations = overrides.maxIterations;
  if (overrides.maxSteps !== undefined) raw.max_steps = overrides.maxSteps;
  if (overrides.backoff !== undefined) raw.backoff = overrides.backoff;
  if (overrides.handoffThreshold !== undefined) {
    const config = raw.config && typeof raw.config === 'object' ? (raw.config as Record<string, unknown>) : {};
    raw.config = { ...config, handoff_threshold: overrides.handoffThreshold };
  }
  if (overrides.noLlm || overrides.llmModel) {
    const llm = raw.llm && typeof raw.llm === 'object' ? { ...(raw.llm as Record<string, unknown>) } : {};
    if (overrides.noLlm) llm.enabled = false;
    if (overrides.llmModel) llm.model = overrides.llmModel;
    raw.llm = llm;
  }
}

/** Load, override, validate. Never throws for a bad file: problems are diagnostics. */
export function loadLoopFile(
  file: string,
  overrides: LoadOverrides = {},
  cwd: string = process.cwd(),
  chain: readonly string[] = [file],
): LoadedLoop {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { file, diagnostics: [{ ...error([], `cannot read the loop file: ${(err as Error).message}`), file }] };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, version: '1.2' });
  const parsed = yamlValue(doc, lines, file, text);
  if ('diagnostics' in parsed) return { file, diagnostics: parsed.diagnostics };
  // A state that flow: generated is written under state_defs: (or as a flow: entry).
  let written = (path: Diagnostic['path']): Diagnostic['path'] => path;
  // A value an inherited loop wrote (`from:`) is placed in that loop's file (loader/reuse.ts).
  let inherited = (d: Diagnostic): Diagnostic => d;
  const locate = (diagnostic: Diagnostic): Diagnostic => {
    const d = inherited(diagnostic);
    return d.file !== undefined && d.file !== file ? d : { ...d, file, ...positionOf(doc, written(d.path), lines) };
  };
  let raw: unknown = parsed.value;
  // Warnings of the authoring forms (flow:, from:, fragments, paradigms) stay with the result.
  let early: Diagnostic[] = [];
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    // Authoring forms become the FSM in this order: inherit (`from:`) and expand fragments, then
    // compile a paradigm; the command line's overrides apply to the result.
    const flowed = expandFlow(raw as Record<string, unknown>);
    const asWritten = raw as Record<string, unknown>;
    if (flowed.raw !== asWritten) written = (path) => flowSourcePath(path, asWritten);
    const reused = expandReuse(flowed.raw, file, cwd);
    if (reused.locate) inherited = reused.locate;
    const compiled = reused.raw ? compileParadigm(reused.raw) : { diagnostics: [] };
    early = [...flowed.diagnostics, ...reused.diagnostics, ...compiled.diagnostics].map(locate);
    if (!compiled.raw || hasErrors(early)) return { file, diagnostics: early };
    raw = compiled.raw;
    const accepted = new Set(overrides.acceptedContext ?? []);
    const given = Object.keys(overrides.context ?? {}).filter((k) => !accepted.has(k));
    if (given.length && overrides.refuseUnusedContext) {
      const name = typeof compiled.raw.name === 'string' ? compiled.raw.name : basename(file);
      checkContextKeys(given, usedContextKeys({ ...reused.raw, ...compiled.raw }, cwd, resolveLoopFile), name);
    }
    applyOverrides(compiled.raw, overrides);
    if (overrides.runContext) addRunContext(compiled.raw, cwd);
  }
  const runStarts = overrides.requireParameters === true || overrides.refuseUnsetContext === true;
  const result = validateLoop(raw, { runStarts });
  const diagnostics = [...early, ...result.diagnostics.map(locate)];
  if (!result.definition || hasErrors(diagnostics)) return { file, diagnostics };
  // Scopes are paths of the checkout the run works in: the directory it runs from.
  const scoped = checkScopes(result.definition, cwd);
  diagnostics.push(...scoped.diagnostics.map(locate));
  diagnostics.push(...checkJsonSchemas(result.definition).map(locate));
  const parameters = bindParameters(result.definition, overrides.context ?? {}, {
    source: 'command line',
    strict: false,
    requireAll: overrides.requireParameters === true,
  });
  diagnostics.push(
    ...parameters.problems.map((p) =>
      // A value the command line gave is at fault there, not in the file.
      Object.hasOwn(overrides.context ?? {}, p.parameter) && p.at === undefined
        ? { ...error(['parameters', p.parameter], p.message, p.fix), given: 'context' as const }
        : locate(error(p.at ?? ['parameters', p.parameter], p.message, p.fix)),
    ),
  );
  diagnostics.push(
    ...checkSubloops(result.definition, {
      cwd,
      chain,
      resolve: resolveLoopFile,
      load: (childFile, childChain) => loadLoopFile(childFile, {}, cwd, childChain),
      extraContext: Object.keys(overrides.context ?? {}),
      runStarts,
    }).map(locate),
  );
  if (hasErrors(diagnostics)) return { file, diagnostics };
  const given = overrides.context ?? {};
  const data = {
    keys: new Set(commandLineDataKeys(result.definition, given)),
    isCode: (key: string) => result.definition!.parameters?.[key]?.type === 'command',
  };
  const unresolved = { ...result.definition.context, ...parameters.values };
  let context: Record<string, unknown>;
  try {
    context = resolveContext(unresolved, data);
  } catch (err) {
    if (!(err instanceof ContextError)) throw err;
    // A value built from a parameter this command was not given (validate, show): a run must
    // give it (requireParameters refuses one that does not), and resolves the value then.
    const declared = err.missing !== undefined && Object.hasOwn(result.definition.parameters ?? {}, err.missing);
    if (!declared || overrides.requireParameters === true)
      return { file, diagnostics: [...diagnostics, locate(error(['context', err.key], err.message))] };
    context = unresolved;
  }
  const definition = { ...scoped.definition, context };
  const tooLarge = payloadProblem(definition);
  if (tooLarge) return { file, diagnostics: [...diagnostics, { ...tooLarge, file, line: 1, column: 1 }] };
  return { file, definition, dataContext: [...data.keys], diagnostics };
}

/** Resolve a name or path and load it. */
export function loadLoop(nameOrPath: string, cwd: string, overrides: LoadOverrides = {}): LoadedLoop {
  return loadLoopFile(resolveLoopFile(nameOrPath, cwd), overrides, cwd);
}

/**
 * The MCP tools about loop files, over the loader's functions (never a command): `list_loops`
 * (the project's loops and the built-ins), `validate_loop` (its diagnostics), `show_loop` (the
 * resolved definition and its Mermaid graph). All read only.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { formatDiagnostic, type Diagnostic } from '../../fsm/diagnostics.js';
import { UsageError } from '../../errors/errors.js';
import { builtinLoopFile, builtinLoopNames } from '../../loader/catalog.js';
import { listLoopNames, loadLoop, loadLoopFile, loopsDir, parseContextArgs } from '../../loader/load.js';
import { renderMermaid } from '../show/mermaid.js';
import { registerTool, report, type ToolHost } from './tool-kit.js';

const diagnostic = report({
  severity: z.string(),
  message: z.string(),
  state: z.string().optional(),
  fix: z.string().optional(),
  file: z.string().optional(),
  line: z.number().optional(),
});

const listing = report({
  name: z.string(),
  file: z.string(),
  source: z.enum(['project', 'builtin']).describe('a `.loops/` file, or a loop shipped with ll-loop'),
  valid: z.boolean(),
  description: z.string().optional(),
  category: z.string().optional(),
  labels: z.array(z.string()),
  parameters: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional().describe('the first error of an invalid file'),
});

/**
 * Context values as a tool takes them: text, or a JSON number or boolean taken as its text (an
 * agent passes an integer parameter as 3, not "3"; `--context n=3` is text too).
 */
export const contextValues = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional();
type ContextValues = z.infer<typeof contextValues>;

/** The context values as text, as `--context` gives them. */
export function contextStrings(context: ContextValues): Record<string, string> | undefined {
  return context && Object.fromEntries(Object.entries(context).map(([k, v]) => [k, String(v)]));
}

/** `KEY=VALUE` pairs from a context object. */
export function contextPairs(context: ContextValues): string[] {
  return Object.entries(contextStrings(context) ?? {}).map(([k, v]) => `${k}=${v}`);
}

const contextInput = contextValues.describe('context values (parameters), as `--context KEY=VALUE` gives them');

/** One loop file as `list_loops` lists it. */
function listingOf(name: string, file: string, source: 'project' | 'builtin', cwd: string): z.infer<typeof listing> {
  const loaded = loadLoopFile(file, {}, cwd);
  const def = loaded.definition;
  if (!def) {
    const first = loaded.diagnostics.find((d) => d.severity === 'error');
    return { name, file, source, valid: false, labels: [], error: first?.message ?? 'invalid loop' };
  }
  return {
    name,
    file,
    source,
    valid: true,
    labels: def.labels,
    ...(def.description === undefined ? {} : { description: def.description }),
    ...(def.category === undefined ? {} : { category: def.category }),
    ...(def.parameters === undefined ? {} : { parameters: def.parameters as Record<string, unknown> }),
  };
}

/** The project's loops, then the built-ins a project loop does not shadow. */
function allListings(cwd: string) {
  const project = listLoopNames(cwd).map((name) => {
    const yaml = join(loopsDir(cwd), `${name}.yaml`);
    return listingOf(name, existsSync(yaml) ? yaml : join(loopsDir(cwd), `${name}.yml`), 'project', cwd);
  });
  const taken = new Set(project.map((l) => l.name));
  const builtin = builtinLoopNames()
    .filter((name) => !taken.has(name))
    .map((name) => listingOf(name, builtinLoopFile(name)!, 'builtin', cwd));
  return [...project, ...builtin];
}

const plain = (d: Diagnostic) => ({
  severity: d.severity,
  message: d.message,
  ...(d.state === undefined ? {} : { state: d.state }),
  ...(d.fix === undefined ? {} : { fix: d.fix }),
  ...(d.file === undefined ? {} : { file: d.file }),
  ...(d.line === undefined ? {} : { line: d.line }),
});

export function registerLoopTools(host: ToolHost, cwd: string): void {
  registerTool(host, {
    name: 'list_loops',
    title: 'List loops',
    description: "The loops this project can run: its `.loops/` files and ll-loop's built-in loops.",
    input: { category: z.string().optional().describe('only loops of this category') },
    output: { loops: z.array(listing) },
    readOnly: true,
    run: ({ category }) => ({
      loops: allListings(cwd).filter((l) => category === undefined || l.category === category),
    }),
  });

  registerTool(host, {
    name: 'validate_loop',
    title: 'Validate a loop',
    description: 'Check a loop file (by name or path) as `ll-loop validate` does: its errors and warnings.',
    input: { loop: z.string().describe('a loop name or a path to a loop file') },
    output: { file: z.string(), valid: z.boolean(), diagnostics: z.array(diagnostic) },
    readOnly: true,
    run: ({ loop }) => {
      const loaded = loadLoop(loop, cwd);
      return { file: loaded.file, valid: loaded.definition !== undefined, diagnostics: loaded.diagnostics.map(plain) };
    },
  });

  registerTool(host, {
    name: 'show_loop',
    title: 'Show a loop',
    description: "A loop's resolved definition (its states, context, parameters) and its graph in Mermaid.",
    input: { loop: z.string().describe('a loop name or a path to a loop file'), context: contextInput },
    output: { file: z.string(), definition: z.record(z.string(), z.unknown()), mermaid: z.string() },
    readOnly: true,
    run: ({ loop, context }) => {
      const loaded = loadLoop(loop, cwd, { context: parseContextArgs(contextPairs(context)) });
      if (!loaded.definition)
        throw new UsageError(
          `${loaded.file} is not a valid loop:\n${loaded.diagnostics.map((d) => formatDiagnostic(d)).join('\n')}`,
          'fix the errors above (validate_loop lists them), then show it again',
        );
      return {
        file: loaded.file,
        definition: loaded.definition as unknown as Record<string, unknown>,
        mermaid: renderMermaid(loaded.definition).join('\n'),
      };
    },
  });
}

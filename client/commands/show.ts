/**
 * `ll-loop show <name|path> [--format text|mermaid|json] [--json] [--context K=V]…`: the loop as a
 * diagram, a table of states and the commands to run it; or a Mermaid state diagram; or the
 * resolved definition as JSON. Loads through the same pipeline as `run` and `validate`, so a
 * bad file gives the same diagnostics (exit 1) and inherited or paradigm files show their FSM.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { parse } from 'yaml';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import { didYouMean } from '../../fsm/suggest.js';
import { bool, oneLoopTarget, str, type CommandSpec } from '../command-table.js';
import { CONTEXT_FLAGS, contextPairs } from './context-flags.js';
import { builtinLoopFile } from '../../loader/catalog.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { loadLoopFile, parseContextArgs, resolveLoopFile } from '../../loader/load.js';
import { colourWanted, createStyle } from '../../reporters/style.js';
import { renderMermaid } from '../show/mermaid.js';
import { renderShow } from '../show/render.js';
import { printDiagnostics } from '../../reporters/diagnostics.js';

export const SHOW_FORMATS = ['text', 'mermaid', 'json'] as const;
export type ShowFormat = (typeof SHOW_FORMATS)[number];

export interface ShowOptions {
  cwd: string;
  target: string;
  format: ShowFormat;
  /** `--context KEY=VALUE` pairs, as for `run`: they bind parameters in the resolved definition. */
  context: readonly string[];
  /** ANSI colour in the text format (the caller decides: a TTY without NO_COLOR). */
  colour: boolean;
  /** Columns for the text format. */
  width: number;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Below this the diagram's arrows and the table stop making sense; wider terminals use more. */
const MIN_WIDTH = 60;
const DEFAULT_WIDTH = 80;

/** The file as shown: relative to the working directory when it is inside it. */
function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** How the file was authored when it is not a plain FSM (`paradigm: goal`, `from: base`). */
function authoredAs(file: string): string[] {
  try {
    const raw: unknown = parse(readFileSync(file, 'utf8'));
    if (!raw || typeof raw !== 'object') return [];
    const doc = raw as Record<string, unknown>;
    const out: string[] = [];
    if (typeof doc.paradigm === 'string' && doc.paradigm !== 'fsm') out.push(`compiled from paradigm: ${doc.paradigm}`);
    if (typeof doc.from === 'string') out.push(`inherits from: ${doc.from}`);
    return out;
  } catch {
    // The file loaded a moment ago; if it cannot be read now, the note is simply left out.
    return [];
  }
}

export function showCommand(opts: ShowOptions): number {
  const file = resolveLoopFile(opts.target, opts.cwd);
  const loaded = loadLoopFile(file, { context: parseContextArgs(opts.context) }, opts.cwd);
  const json = opts.format === 'json';
  if (loaded.definition === undefined) {
    // The same report as `ll-loop validate`, so both commands agree on what is wrong.
    if (json) {
      opts.out(`${JSON.stringify({ file: loaded.file, valid: false, diagnostics: loaded.diagnostics }, null, 2)}\n`);
    } else {
      printDiagnostics(loaded.diagnostics, false, opts.out, opts.err);
      const errors = loaded.diagnostics.filter((d) => d.severity === 'error').length;
      opts.err(`✗ ${loaded.file}: ${errors} error${errors === 1 ? '' : 's'}; nothing to show\n`);
    }
    return EXIT.usage;
  }
  // Warnings go to stderr, so stdout stays a clean diagram or JSON document.
  for (const d of loaded.diagnostics) opts.err(`${formatDiagnostic(d)}\n`);
  const def = loaded.definition;
  if (json) {
    opts.out(`${JSON.stringify(def, null, 2)}\n`);
  } else if (opts.format === 'mermaid') {
    opts.out(`${renderMermaid(def).join('\n')}\n`);
  } else {
    const builtin = builtinLoopFile(opts.target) === file;
    opts.out(
      renderShow(
        {
          definition: def,
          file: displayPath(file, opts.cwd),
          target: { arg: opts.target, builtin },
          source: authoredAs(file),
        },
        { style: createStyle(opts.colour), width: Math.max(MIN_WIDTH, opts.width) },
      ),
    );
  }
  return EXIT.ok;
}

function formatOf(value: string | undefined, json: boolean): ShowFormat {
  if (value === undefined) return json ? 'json' : 'text';
  if (!(SHOW_FORMATS as readonly string[]).includes(value)) {
    throw new UsageError(
      `--format "${value}" is not a format${didYouMean(value, SHOW_FORMATS)}`,
      `use one of: ${SHOW_FORMATS.join(', ')}`,
    );
  }
  if (json && value !== 'json')
    throw new UsageError(
      `--json and --format ${value} ask for different outputs`,
      `drop one of them (--json is --format json)`,
    );
  return value as ShowFormat;
}

export const showSpec: CommandSpec = {
  usage: 'show <name|path> [--format mermaid|json]     a loop as a diagram, its states, how to run it',
  flags: {
    format: { type: 'string', short: 'f' },
    json: { type: 'boolean' },
    ...CONTEXT_FLAGS,
  },
  run(ctx) {
    const target = oneLoopTarget(ctx, 'show', 'll-loop show <name> [--format mermaid]');
    const format = formatOf(str(ctx, 'format'), bool(ctx, 'json'));
    const stdout = ctx.terminal;
    return showCommand({
      cwd: ctx.cwd,
      target,
      format,
      context: contextPairs(ctx),
      colour: colourWanted(stdout),
      width: stdout.isTTY && stdout.columns ? stdout.columns : DEFAULT_WIDTH,
      out: ctx.out,
      err: ctx.err,
    });
  },
};

/**
 * The text output of `ll-loop show`: a header (name, description, file, limits), the diagram,
 * the table of states, the parameters and the commands to run the loop. Pure: the caller
 * supplies the style (colour or not) and the width.
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import type { Style } from '../../reporters/style.js';
import { printable } from './describe.js';
import { renderDiagram } from './diagram.js';
import { buildGraph } from './graph.js';
import { renderCommands, renderParameters, type ShowTarget } from './how-to-run.js';
import { renderStatesTable } from './states-table.js';
import { wrapText } from './wrap.js';

export interface ShowInput {
  definition: LoopDefinition;
  /** The file as the user should read it (relative to the working directory when inside it). */
  file: string;
  target: ShowTarget;
  /** How the file was written, when it is not a plain FSM: `paradigm: goal`, `from: base`. */
  source?: string[];
}

export interface RenderOptions {
  style: Style;
  /** Columns available; the diagram and the action column fit this where names allow. */
  width: number;
}

/** Parts joined with " · ", a new line wherever the next part would pass `width`. */
function joinParts(parts: readonly string[], width: number): string[] {
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines[lines.length - 1];
    if (last !== undefined && [...last].length + 3 + [...part].length <= width)
      lines[lines.length - 1] = `${last} · ${part}`;
    else lines.push(part);
  }
  return lines;
}

function limits(def: LoopDefinition): string[] {
  // Hitting a limit is not a transition, so the diagram cannot show it: say what happens here.
  const parts = [
    `${Object.keys(def.states).length} states`,
    `starts at ${printable(def.initial)}`,
    `max_iterations ${def.max_iterations} (then stops, exit 3)`,
  ];
  if (def.max_steps !== undefined) parts.push(`max_steps ${def.max_steps}`);
  if (def.timeout !== undefined) parts.push(`timeout ${def.timeout}s`);
  if (def.backoff !== undefined) parts.push(`backoff ${def.backoff}s`);
  if (def.maintain)
    parts.push(`maintain (restarts after a terminal${def.maintain_delay ? `, ${def.maintain_delay}s later` : ''})`);
  if (!def.llm.enabled) parts.push('LLM evaluation off');
  return parts;
}

function header(input: ShowInput, opts: RenderOptions): string[] {
  const def = input.definition;
  const style = opts.style;
  const lines = [style.bold(printable(def.name))];
  if (def.description) lines.push(...wrapText(printable(def.description), opts.width - 2).map((l) => `  ${l}`));
  const origin = [input.target.builtin ? 'built-in' : '', ...(input.source ?? [])].filter(Boolean);
  lines.push(style.dim(`  file: ${printable(input.file)}${origin.length ? ` (${origin.join(', ')})` : ''}`));
  lines.push(...joinParts(limits(def), opts.width - 2).map((line) => style.dim(`  ${line}`)));
  return lines;
}

function section(title: string, body: string[], style: Style): string[] {
  return body.length ? ['', style.bold(title), ...body] : [];
}

/** The whole text output, ending with a newline. */
export function renderShow(input: ShowInput, opts: RenderOptions): string {
  const def = input.definition;
  const graph = buildGraph(def);
  const lines = [
    ...header(input, opts),
    ...section('Diagram', renderDiagram(graph, opts.style, opts.width), opts.style),
    ...section('States', renderStatesTable(def, graph, opts.width), opts.style),
    ...section('Parameters', renderParameters(def), opts.style),
    ...section('How to run', renderCommands(def, input.target), opts.style),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The terminal diagram of `ll-loop show`: the main path as a vertical spine (each step labelled
 * with the verdicts that take it), every other exit as a labelled arrow under its state, then the
 * other states: side paths in order of first mention, then the ends, then unreachable states.
 * Lines fit `width` columns where names allow;
 * colour comes only from `style` (plain when it is off).
 *
 *   ▶ test
 *   │    no ──▶ fix
 *   │ yes
 *   ▼
 *   ◉ done  (terminal)
 *
 *   ○ fix
 *        next ──▶ test ↺
 */
import { oneLine } from '../../fsm/format.js';
import type { Style } from '../../reporters/style.js';
import { labelsText, printable, targetText } from './describe.js';
import type { Exit, LoopGraph, StateNode } from './graph.js';
import { wrapText } from './wrap.js';

const INDENT = '  ';
/** Exit lines sit under the state name, right of the spine. */
const EXIT_GAP = '    ';

/** Fits the narrowest width `ll-loop show` draws for (60 columns). */
const LEGEND = '▶ start  ○ state  ◉ end  ✗ failure end  ↺ loops back';

/** Text with its printed width (no ANSI codes counted) and its styled form. */
interface Piece {
  plain: string;
  styled: string;
}

const piece = (plain: string, paint: (s: string) => string = (s) => s): Piece => ({ plain, styled: paint(plain) });
const join = (pieces: Piece[]): Piece => ({
  plain: pieces.map((p) => p.plain).join(''),
  styled: pieces.map((p) => p.styled).join(''),
});
const width = (text: string): number => [...text].length;

function glyph(node: StateNode, style: Style): Piece {
  if (node.initial) return piece('▶', style.bold);
  if (node.failure) return piece('✗', style.red);
  if (node.terminal) return piece('◉', style.green);
  if (node.human !== undefined) return piece('◇', style.bold);
  return piece('○');
}

function notes(node: StateNode): string[] {
  const out: string[] = [];
  if (node.terminal) out.push(node.failure ? 'terminal, failure' : 'terminal');
  if (node.subLoop !== undefined) out.push(`runs loop ${printable(node.subLoop)}`);
  if (node.human !== undefined) out.push(`asks a person: ${node.human}`);
  if (node.fanOut !== undefined) out.push(`fans out: ${printable(node.fanOut.text)} ⇉ join`);
  if (node.unreachable) out.push('unreachable');
  return out;
}

/** The state's line; its notes move to a line of their own (after `prefix`) when both would pass `maxWidth`. */
function nodeLines(node: StateNode, style: Style, prefix: Piece, maxWidth: number): string[] {
  const name = join([
    piece(INDENT),
    glyph(node, style),
    piece(' '),
    piece(printable(node.name), node.failure ? (s) => style.bold(style.red(s)) : style.bold),
  ]);
  const extra = notes(node);
  if (extra.length === 0) return [name.styled];
  const note = piece(`(${extra.join('; ')})`, style.dim);
  const one = join([name, piece('  '), note]);
  return width(one.plain) <= maxWidth ? [one.styled] : [name.styled, join([prefix, note]).styled];
}

/** Back edges end in ↺ (the legend says "loops back"). */
function marker(exit: Exit, style: Style): Piece {
  return exit.back ? piece(' ↺', style.yellow) : piece('');
}

/** The target as the diagram shows it: the state's own name reads as "itself". */
function diagramTarget(exit: Exit, from: string): string {
  if (exit.target.kind === 'state' && exit.target.name === from)
    return exit.target.viaCurrent ? 'itself ($current)' : 'itself';
  return targetText(exit);
}

/**
 * One exit as `label ──▶ target`, arrows aligned to `labelWidth`; two lines when one would not
 * fit. State names are never shortened (a cut name is ambiguous): a line with a name longer than
 * the width overflows. Only `${…}` templates are cut.
 */
function exitLines(
  exit: Exit,
  from: string,
  prefix: Piece,
  labelWidth: number,
  style: Style,
  maxWidth: number,
): string[] {
  const labels = labelsText(exit);
  const label = piece(labels, style.cyan);
  const mark = marker(exit, style);
  const arrow = piece(` ${'─'.repeat(labelWidth - width(labels) + 2)}▶ `, style.dim);
  const target = diagramTarget(exit, from);
  const one = join([prefix, label, arrow, piece(target), mark]);
  if (width(one.plain) <= maxWidth) return [one.styled];
  const room = Math.max(12, maxWidth - width(prefix.plain) - 6 - width(mark.plain));
  const shown = exit.target.kind === 'dynamic' ? oneLine(target, room) : target;
  return [join([prefix, label]).styled, join([prefix, piece('  ──▶ ', style.dim), piece(shown), mark]).styled];
}

function exitBlock(node: StateNode, exits: readonly Exit[], prefix: Piece, style: Style, maxWidth: number): string[] {
  const labelWidth = Math.max(0, ...exits.map((e) => width(labelsText(e))));
  return exits.flatMap((exit) => exitLines(exit, node.name, prefix, labelWidth, style, maxWidth));
}

/** The exit from `node` that the main path takes to `next`. */
function spineExit(node: StateNode, next: string | undefined): Exit | undefined {
  if (next === undefined) return undefined;
  return node.exits.find((e) => e.target.kind === 'state' && e.target.name === next && !e.target.viaCurrent);
}

/** The diagram's lines (no trailing newline), legend first. */
export function renderDiagram(graph: LoopGraph, style: Style, maxWidth = 80): string[] {
  const lines: string[] = [style.dim(`${INDENT}${LEGEND}`), ''];
  graph.mainPath.forEach((name, i) => {
    const node = graph.nodes[name]!;
    const next = graph.mainPath[i + 1];
    const spine = spineExit(node, next);
    const prefix = join([piece(INDENT), next === undefined ? piece(' ') : piece('│', style.dim), piece(EXIT_GAP)]);
    lines.push(...nodeLines(node, style, prefix, maxWidth));
    lines.push(
      ...exitBlock(
        node,
        node.exits.filter((e) => e !== spine),
        prefix,
        style,
        maxWidth,
      ),
    );
    if (spine) {
      lines.push(`${INDENT}${style.dim('│')} ${style.cyan(labelsText(spine))}`);
      lines.push(`${INDENT}${style.dim('▼')}`);
    }
  });
  if (graph.mainPath.length > 0 && !graph.mainPathComplete) {
    const note =
      '(no path from the start reaches an end that is not a failure: the run ends in failure or at max_iterations)';
    lines.push(...wrapText(note, maxWidth - INDENT.length).map((line) => style.yellow(`${INDENT}${line}`)));
  }
  let previousHadExits = true;
  for (const name of graph.order.slice(graph.mainPath.length)) {
    const node = graph.nodes[name]!;
    const prefix = piece(`${INDENT} ${EXIT_GAP}`);
    const exits = exitBlock(node, node.exits, prefix, style, maxWidth);
    // States without exits (the ends) are listed one per line; a blank line separates the rest.
    if (previousHadExits || exits.length > 0) lines.push('');
    lines.push(...nodeLines(node, style, prefix, maxWidth), ...exits);
    previousHadExits = exits.length > 0;
  }
  return lines;
}

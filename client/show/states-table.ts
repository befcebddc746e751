/**
 * The table of states of `ll-loop show`: state, kind, action, evaluator and transitions. One row
 * per state, as many lines as its longest cell: one transition per line, and the action and the
 * evaluator wrapped to share what is left of `maxWidth` (a few lines each, then "…").
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import { table } from '../../reporters/table.js';
import { actionText, evaluatorText, kindText, labelsText, printable, targetText } from './describe.js';
import type { LoopGraph, StateNode } from './graph.js';
import { wrapText } from './wrap.js';

const INDENT = '  ';
const GAP = 2;
/** Text columns never shrink below this (a shortened cell still says what it is). */
const MIN_TEXT = 14;
const MAX_TEXT = 40;
/** Lines an action and an evaluator may take before they are cut with "…". */
const ACTION_LINES = 2;
const EVALUATOR_LINES = 4;
/** The evaluator takes at most this share of the room left for the two text columns. */
const EVALUATOR_SHARE = 0.5;

function transitions(node: StateNode): string[] {
  const lines = node.exits.map((exit) => `${labelsText(exit)} → ${targetText(exit, true)}`);
  if (node.terminal && lines.length === 0) return [node.failure ? 'end (failure)' : 'end'];
  return lines.length ? lines : ['—'];
}

const cellWidth = (cells: readonly string[]): number => Math.max(0, ...cells.map((c) => [...c].length));

/** The table's lines (no trailing newline), in the graph's display order. */
export function renderStatesTable(def: LoopDefinition, graph: LoopGraph, maxWidth = 80): string[] {
  const nodes = graph.order.map((name) => graph.nodes[name]!);
  const names = nodes.map((n) => printable(n.name));
  const kinds = nodes.map((n) => kindText(n.config));
  const evaluators = nodes.map((n) => evaluatorText(def, n.config));
  const exits = nodes.map(transitions);
  const fixed = [
    ['STATE', ...names],
    ['KIND', ...kinds],
    ['TRANSITIONS', ...exits.flat()],
  ].reduce((sum, column) => sum + cellWidth(column), 0);
  // ACTION and EVALUATOR share what is left of the width (the evaluator never more than it needs).
  const room = maxWidth - INDENT.length - fixed - 4 * GAP;
  const evaluatorWidth = Math.min(
    cellWidth(['EVALUATOR', ...evaluators]),
    MAX_TEXT,
    Math.max(MIN_TEXT, Math.floor(room * EVALUATOR_SHARE)),
  );
  const actionWidth = Math.min(MAX_TEXT, Math.max(MIN_TEXT, room - evaluatorWidth));
  const rows: string[][] = [['STATE', 'KIND', 'ACTION', 'EVALUATOR', 'TRANSITIONS']];
  nodes.forEach((node, i) => {
    const action = wrapText(actionText(node.config, actionWidth * ACTION_LINES, def), actionWidth, ACTION_LINES);
    const evaluator = wrapText(evaluators[i]!, evaluatorWidth, EVALUATOR_LINES);
    const height = Math.max(action.length, evaluator.length, exits[i]!.length);
    for (let line = 0; line < height; line += 1) {
      rows.push([
        line === 0 ? names[i]! : '',
        line === 0 ? kinds[i]! : '',
        action[line] ?? '',
        evaluator[line] ?? '',
        exits[i]![line] ?? '',
      ]);
    }
  });
  return table(rows)
    .trimEnd()
    .split('\n')
    .map((line) => `${INDENT}${line}`);
}

/**
 * The graph the page draws: the one `ll-loop show` builds (client/show/graph.ts) from the
 * definition the run was started with (its workflow input), so a loop file changed since then
 * does not change the drawing. Flattened for the wire; a `${…}` exit target is drawn as a node of
 * its own (`${…}`), not guessed.
 */
import type { LoopDefinition } from '../../fsm/schema.js';
import { buildGraph } from '../../client/show/graph.js';
import { humanAsk } from '../../fsm/human.js';
import { routeFor } from '../../fsm/routing.js';
import type { GraphEdge, GraphNode, RunGraph } from './wire.js';

const ACTION_CHARS = 200;

export function runGraph(def: LoopDefinition): RunGraph {
  const graph = buildGraph(def);
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const dynamic = new Set<string>();
  for (const name of graph.order) {
    const node = graph.nodes[name];
    if (!node) continue;
    const action = node.config.action;
    nodes.push({
      name,
      initial: node.initial,
      terminal: node.terminal,
      failure: node.failure,
      ...(node.subLoop === undefined ? {} : { subLoop: node.subLoop }),
      ...(typeof action === 'string' ? { action: action.slice(0, ACTION_CHARS) } : {}),
      // As the run decides it (fsm/human.ts replyMismatch): an edit needs a route for `edit`.
      ...(node.config.action_type === 'human' && humanAsk(node.config) === 'approval' && routeFor(node.config, 'edit')
        ? { editable: true }
        : {}),
    });
    for (const exit of node.exits) {
      const to = exit.target.kind === 'state' ? exit.target.name : exit.target.template;
      if (exit.target.kind === 'dynamic') dynamic.add(to);
      edges.push({ from: name, to, labels: exit.labels, back: exit.back });
    }
  }
  for (const template of dynamic) nodes.push({ name: template, initial: false, terminal: false, failure: false });
  return { loop: def.name, nodes, edges };
}

/**
 * The loop's graph as SVG, laid out by dagre (a layered layout: states top to bottom, back edges
 * routed around). Drawn once per graph; lighting the current state, marking the path taken and
 * the edges' counts only change classes and texts, so a transition costs no layout.
 */
import { Graph, layout } from '@dagrejs/dagre';
import type { RunGraph } from '../server/wire.js';
import { s } from './dom.js';
import { edgeKey } from './run-model.js';

const NODE_H = 34;
const CHAR_W = 7.4;
const LABEL_H = 16;

interface Drawn {
  svg: SVGSVGElement;
  nodes: Map<string, SVGElement>;
  edges: Map<string, { group: SVGElement; count: SVGElement; base: string }>;
}

function textWidth(text: string): number {
  return Math.max(60, text.length * CHAR_W + 24);
}

/** Lays out and draws `graph`. */
export function drawGraph(graph: RunGraph): Drawn {
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 44, edgesep: 12, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) g.setNode(n.name, { width: textWidth(n.name), height: NODE_H });
  graph.edges.forEach((e, i) => {
    const label = `${e.labels.join(' / ')} ×00`;
    g.setEdge(e.from, e.to, { width: label.length * 6.4, height: LABEL_H, labelpos: 'c' }, `e${i}`);
  });
  layout(g);
  const size = g.graph() as { width?: number; height?: number };
  const width = Math.ceil(size.width ?? 200);
  const height = Math.ceil(size.height ?? 100);
  const svg = s('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: 'graph',
    role: 'img',
    'aria-label': `graph of ${graph.loop}`,
  }) as SVGSVGElement;
  svg.append(
    s(
      'defs',
      {},
      s(
        'marker',
        {
          id: 'arrow',
          viewBox: '0 0 10 10',
          refX: 9,
          refY: 5,
          markerWidth: 7,
          markerHeight: 7,
          orient: 'auto-start-reverse',
        },
        s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }),
      ),
    ),
  );
  const edges = new Map<string, { group: SVGElement; count: SVGElement; base: string }>();
  graph.edges.forEach((e, i) => {
    const laid = g.edge(e.from, e.to, `e${i}`) as { points?: Array<{ x: number; y: number }>; x?: number; y?: number };
    const points = laid.points ?? [];
    const d = points.map((p, j) => `${j === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    const base = e.labels.join(' / ');
    const count = s('tspan', { class: 'count' }, '');
    const group = s(
      'g',
      { class: `edge${e.back ? ' back' : ''}`, 'data-from': e.from, 'data-to': e.to },
      s('path', { d, 'marker-end': 'url(#arrow)' }),
      s(
        'text',
        { x: (laid.x ?? 0).toFixed(1), y: ((laid.y ?? 0) + 4).toFixed(1), 'text-anchor': 'middle' },
        base,
        count,
      ),
    );
    svg.append(group);
    edges.set(edgeKey(e.from, e.to), { group, count, base });
  });
  const nodes = new Map<string, SVGElement>();
  for (const n of graph.nodes) {
    const laid = g.node(n.name) as { x: number; y: number; width: number; height: number };
    const cls = [
      'node',
      n.initial ? 'initial' : '',
      n.terminal ? 'terminal' : '',
      n.failure ? 'failure' : '',
      n.subLoop ? 'subloop' : '',
    ]
      .filter(Boolean)
      .join(' ');
    const title = n.action ? `${n.name}: ${n.action}` : n.subLoop ? `${n.name}: loop ${n.subLoop}` : n.name;
    const group = s(
      'g',
      {
        class: cls,
        'data-state': n.name,
        transform: `translate(${(laid.x - laid.width / 2).toFixed(1)},${(laid.y - laid.height / 2).toFixed(1)})`,
      },
      s('title', {}, title),
      s('rect', { width: laid.width, height: laid.height, rx: n.terminal ? 17 : 6 }),
      s('text', { x: laid.width / 2, y: laid.height / 2 + 5, 'text-anchor': 'middle' }, n.name),
    );
    svg.append(group);
    nodes.set(n.name, group);
  }
  return { svg, nodes, edges };
}

/** Lights `current`, marks the states visited and each edge's count. */
export function paintGraph(
  drawn: Drawn,
  state: { current: string | undefined; ended: boolean; visited: Set<string>; edgeCounts: Map<string, number> },
): void {
  for (const [name, el] of drawn.nodes) {
    el.classList.toggle('lit', name === state.current && !state.ended);
    el.classList.toggle('final', name === state.current && state.ended);
    el.classList.toggle('visited', state.visited.has(name));
    el.setAttribute('aria-current', name === state.current ? 'true' : 'false');
  }
  for (const [key, e] of drawn.edges) {
    const n = state.edgeCounts.get(key) ?? 0;
    e.count.textContent = n > 0 ? ` ×${n}` : '';
    e.group.classList.toggle('taken', n > 0);
  }
}

export type { Drawn as DrawnGraph };

/**
 * The loop's graph as SVG, laid out by dagre (a layered layout: states top to bottom, back edges
 * routed around). Drawn once per graph; lighting the current state, marking the path taken and
 * the edges' counts only change classes and texts, so a transition costs no layout. Edge labels
 * sit beside their edge (dagre routes the edge past the label, not through it), on a backdrop,
 * above every edge, so no line crosses a label.
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
  /** Per edge: its line and its label (each a `.edge` group with the edge's `data-from`/`data-to`). */
  edges: Map<string, { group: SVGElement; label: SVGElement; count: SVGElement; base: string }>;
}

/** The width a label is given in the layout (and its backdrop): its text and room for a count. */
function labelWidth(base: string): number {
  return `${base} ×00`.length * 6.4;
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
    g.setEdge(
      e.from,
      e.to,
      { width: labelWidth(e.labels.join(' / ')), height: LABEL_H, labelpos: 'r', labeloffset: 6 },
      `e${i}`,
    );
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
  const edges = new Map<string, { group: SVGElement; label: SVGElement; count: SVGElement; base: string }>();
  const labels: SVGElement[] = [];
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
    );
    svg.append(group);
    const x = laid.x ?? 0;
    const y = laid.y ?? 0;
    const w = labelWidth(base);
    const label = s(
      'g',
      { class: 'edge label', 'data-from': e.from, 'data-to': e.to },
      s('rect', {
        class: 'backdrop',
        x: (x - w / 2).toFixed(1),
        y: (y - LABEL_H / 2).toFixed(1),
        width: w.toFixed(1),
        height: LABEL_H,
        rx: 3,
      }),
      s('text', { x: x.toFixed(1), y: (y + 4).toFixed(1), 'text-anchor': 'middle' }, base, count),
    );
    labels.push(label);
    edges.set(edgeKey(e.from, e.to), { group, label, count, base });
  });
  // Above every line: a label is never crossed by another edge either.
  svg.append(...labels);
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
    e.label.classList.toggle('taken', n > 0);
  }
}

/**
 * Scrolls `box` (the graph's scrolling box, not the page) so that `state`'s node is in view,
 * centred when it was out of view; a node already in view is left where it is.
 */
export function revealNode(box: HTMLElement, drawn: Drawn, state: string): void {
  const node = drawn.nodes.get(state);
  if (!node) return;
  const b = box.getBoundingClientRect();
  const n = node.getBoundingClientRect();
  const margin = 8;
  if (n.top < b.top + margin || n.bottom > b.bottom - margin)
    box.scrollTop += n.top + n.height / 2 - (b.top + b.height / 2);
  if (n.left < b.left + margin || n.right > b.right - margin)
    box.scrollLeft += n.left + n.width / 2 - (b.left + b.width / 2);
}

export type { Drawn as DrawnGraph };

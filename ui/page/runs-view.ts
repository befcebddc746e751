/**
 * The runs list: this project's runs, live, with loop, state, iteration, outcome in colour,
 * started and duration; filtered by loop and outcome; sub-runs folded under their parent
 * (runs-tree.ts). The list is windowed: rows have one fixed
 * height and only those in view (plus a margin) exist in the DOM, so 1,000 runs draw their first
 * screen at once and a redraw (each new list, each second for the durations) costs one screen.
 */
import { outcomeLabel } from '../../reporters/outcome-words.js';
import type { RunRow, RunsMessage } from '../server/wire.js';
import { openStream } from './api.js';
import { duration, fill, h } from './dom.js';
import { listedRows, type ListedRow } from './runs-tree.js';

/** One formatter for every row (a `toLocaleString` per date makes a formatter each time). */
const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });

/** A row's height in pixels (app.css gives `tr.run` the same). */
const RUN_ROW_HEIGHT = 30;
const MARGIN_ROWS = 15;

function row(listed: ListedRow, now: number, toggle: (id: string) => void): HTMLElement {
  const r = listed.run;
  const started = Date.parse(r.started);
  const end = r.closed ? Date.parse(r.closed) : now;
  const fold =
    listed.children > 0
      ? h(
          'button',
          {
            type: 'button',
            class: 'fold',
            'aria-expanded': String(listed.open),
            title: listed.summary,
          },
          `${listed.open ? '▾' : '▸'} ${listed.children} sub-run${listed.children === 1 ? '' : 's'} · ${listed.summary}`,
        )
      : undefined;
  fold?.addEventListener('click', () => toggle(r.id));
  const cell = h(
    'td',
    { class: listed.depth ? 'sub-run' : undefined },
    h('a', { href: `#/run/${encodeURIComponent(r.id)}` }, r.id),
    fold,
  );
  // Indented through the CSSOM: the page's CSP refuses style attributes.
  if (listed.depth) cell.style.paddingLeft = `${8 + listed.depth * 18}px`;
  return h(
    'tr',
    {
      class: `run outcome-${r.outcome}${listed.depth ? ' child' : ''}`,
      'data-id': r.id,
      ...(listed.children ? { 'data-children': String(listed.children) } : {}),
    },
    cell,
    h(
      'td',
      {},
      r.loop,
      r.parent ? h('span', { class: 'sub', title: `a sub-loop of ${r.parent}` }, ' ↳ sub-loop') : undefined,
    ),
    h('td', {}, r.state ?? ''),
    h('td', { class: 'num' }, r.iteration === undefined ? '' : String(r.iteration)),
    h('td', {}, h('span', { class: `badge ${r.outcome}` }, outcomeLabel(r.outcome))),
    h('td', {}, WHEN.format(started)),
    h('td', { class: 'num' }, duration(end - started)),
  );
}

function options(select: HTMLSelectElement, values: string[], all: string): void {
  const current = select.value;
  fill(select, h('option', { value: '' }, all), ...values.map((v) => h('option', { value: v }, v)));
  select.value = values.includes(current) ? current : '';
}

export function showRuns(root: HTMLElement): () => void {
  let runs: RunRow[] = [];
  let connected = false;
  let error: string | undefined;
  let scheduled = false;
  const loopFilter = h('select', { id: 'filter-loop', 'aria-label': 'loop' });
  const outcomeFilter = h('select', { id: 'filter-outcome', 'aria-label': 'outcome' });
  const notice = h('div', { class: 'notice', id: 'notice', hidden: '' });
  const body = h('tbody', { id: 'runs' });
  const above = h('tr', { class: 'spacer', 'aria-hidden': 'true' });
  const below = h('tr', { class: 'spacer', 'aria-hidden': 'true' });
  let shown: ListedRow[] = [];
  /** Parents whose sub-runs are shown. */
  const opened = new Set<string>();
  const toggle = (id: string): void => {
    if (opened.has(id)) opened.delete(id);
    else opened.add(id);
    schedule();
  };
  const count = h('span', { class: 'count' });
  fill(
    root,
    h(
      'header',
      { class: 'runs-header' },
      h('h2', {}, `Runs of ${root.dataset.title ?? 'this project'}`),
      count,
      loopFilter,
      outcomeFilter,
    ),
    notice,
    h(
      'div',
      { class: 'panel table-panel runs-scroll', id: 'runs-scroll' },
      h(
        'table',
        { class: 'runs' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['run', 'loop', 'state', 'iter.', 'outcome', 'started', 'duration'].map((t) => h('th', {}, t)),
          ),
        ),
        body,
      ),
    ),
  );
  const render = (): void => {
    scheduled = false;
    options(loopFilter, [...new Set(runs.map((r) => r.loop))].sort(), 'all loops');
    options(outcomeFilter, [...new Set(runs.map((r) => r.outcome))].sort(), 'all outcomes');
    const matching = runs.filter(
      (r) =>
        (!loopFilter.value || r.loop === loopFilter.value) &&
        (!outcomeFilter.value || r.outcome === outcomeFilter.value),
    );
    shown = listedRows(matching, opened);
    drawWindow();
    const own = shown.filter((l) => l.depth === 0).length;
    count.textContent = `${own} of ${runs.length}${matching.length > own ? ` (and ${matching.length - own} sub-runs)` : ''}`;
    body.dataset.shown = String(shown.length);
    body.dataset.listed = String(runs.length);
    notice.hidden = connected && error === undefined;
    notice.textContent = connected ? (error ?? '') : 'The ll-loop ui server is unreachable: reconnecting by itself…';
  };
  const scroller = root.querySelector<HTMLElement>('#runs-scroll')!;
  /** Only the rows in view (and a margin) are drawn; spacer rows stand for the others. */
  const drawWindow = (): void => {
    const first = Math.max(0, Math.floor(scroller.scrollTop / RUN_ROW_HEIGHT) - MARGIN_ROWS);
    const count = Math.ceil((scroller.clientHeight || 800) / RUN_ROW_HEIGHT) + 2 * MARGIN_ROWS;
    const last = Math.min(shown.length, first + count);
    // Heights through the CSSOM: the page's CSP refuses style attributes.
    above.style.height = `${first * RUN_ROW_HEIGHT}px`;
    below.style.height = `${(shown.length - last) * RUN_ROW_HEIGHT}px`;
    const now = Date.now();
    fill(
      body,
      first > 0 && above,
      ...shown.slice(first, last).map((r) => row(r, now, toggle)),
      last < shown.length && below,
    );
  };
  scroller.addEventListener('scroll', () => schedule());
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(render);
  };
  loopFilter.addEventListener('change', schedule);
  outcomeFilter.addEventListener('change', schedule);
  const close = openStream<RunsMessage>('/api/runs/stream', {
    onMessage: (m) => {
      if (m.type === 'runs') {
        // When each list came, and how long it was (the bench reads these marks).
        performance.mark(`ll-runs:${m.runs.length}`);
        runs = m.runs;
        error = undefined;
      } else error = m.message;
      schedule();
    },
    onConnection: (up) => {
      connected = up;
      schedule();
    },
  });
  // Durations of open runs grow: redraw every second while the page is open.
  const tick = setInterval(schedule, 1000);
  return () => {
    clearInterval(tick);
    close();
  };
}

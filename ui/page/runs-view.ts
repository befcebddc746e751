/**
 * The runs list: this project's runs, live, with loop, state, iteration, outcome in colour,
 * started and duration; filtered by loop and outcome. Rows are rebuilt from each list the server
 * sends (at most once a frame).
 */
import type { RunRow, RunsMessage } from '../server/wire.js';
import { openStream } from './api.js';
import { duration, fill, h } from './dom.js';

/** One formatter for every row (a `toLocaleString` per date makes a formatter each time). */
const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });

function row(r: RunRow, now: number): HTMLElement {
  const started = Date.parse(r.started);
  const end = r.closed ? Date.parse(r.closed) : now;
  return h(
    'tr',
    { class: `run outcome-${r.outcome}`, 'data-id': r.id },
    h('td', {}, h('a', { href: `#/run/${encodeURIComponent(r.id)}` }, r.id)),
    h(
      'td',
      {},
      r.loop,
      r.parent ? h('span', { class: 'sub', title: `a sub-loop of ${r.parent}` }, ' ↳ sub-loop') : undefined,
    ),
    h('td', {}, r.state ?? ''),
    h('td', { class: 'num' }, r.iteration === undefined ? '' : String(r.iteration)),
    h('td', {}, h('span', { class: `badge ${r.outcome}` }, r.outcome.replace('_', ' '))),
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
      { class: 'panel table-panel' },
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
    const shown = runs.filter(
      (r) =>
        (!loopFilter.value || r.loop === loopFilter.value) &&
        (!outcomeFilter.value || r.outcome === outcomeFilter.value),
    );
    const now = Date.now();
    fill(body, ...shown.map((r) => row(r, now)));
    count.textContent = `${shown.length} of ${runs.length}`;
    notice.hidden = connected && error === undefined;
    notice.textContent = connected ? (error ?? '') : 'The ll-loop ui server is unreachable: reconnecting by itself…';
  };
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

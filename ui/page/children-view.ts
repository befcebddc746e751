/**
 * A run's children as links: its sub-loops (with how each ended, in the outcome words) and its
 * parallel states, each with its counts (done, failed, running, waiting), a link to each running
 * item's child run, and the ended items that did not succeed first (at most LISTED_ITEMS listed).
 */
import { itemOutcome, outcomeLabel } from '../../reporters/outcome-words.js';
import type { RunStatusView } from '../server/wire.js';
import { h } from './dom.js';
import { fanoutCounts, itemSucceeded, listedItems } from './fanout-model.js';
import type { RunModel } from './run-model.js';

function link(id: string, text = id): HTMLElement {
  return h('a', { href: `#/run/${encodeURIComponent(id)}` }, text);
}

export function childrenList(model: RunModel, status: RunStatusView | null): HTMLElement {
  const items: HTMLElement[] = [];
  for (const [state, f] of model.fanouts) {
    const c = fanoutCounts(f, status);
    const counts = [`${c.done} done`, `${c.failed} failed`, `${c.running} running`];
    if (c.waiting > 0) counts.push(`${c.waiting} waiting`);
    const listed = listedItems(f);
    const links = [
      ...listed.items.map((i) =>
        h(
          'li',
          { class: itemSucceeded(i) ? 'ok' : 'bad', 'data-index': String(i.index) },
          `#${i.index} `,
          i.runId ? link(i.runId) : '(no child run)',
          ` · ${itemOutcome(i.outcome)}`,
        ),
      ),
      ...(listed.more > 0
        ? [h('li', { class: 'muted' }, `… and ${listed.more} more ended (\`ll-loop logs --item N\` for one)`)]
        : []),
      ...c.runningIds.map((r) =>
        h('li', { class: 'running', 'data-index': String(r.index) }, `#${r.index} `, link(r.runId), ' · running'),
      ),
    ];
    items.push(
      h(
        'li',
        { class: 'fanout', 'data-state': state },
        h(
          'span',
          { class: 'fanout-counts' },
          `${state}: ${f.count} items${f.loop ? ` of loop ${f.loop}` : ''} · ${counts.join(' · ')}${f.verdict ? ` · joined: ${f.verdict}` : ''}`,
        ),
        h('ul', {}, ...links),
      ),
    );
  }
  for (const [id, c] of model.children)
    items.push(
      h(
        'li',
        { class: 'subloop' },
        link(id),
        c.loop ? ` (loop ${c.loop})` : '',
        ` · ${c.ended ? outcomeLabel(c.outcome ?? 'ended') : 'running'}`,
      ),
    );
  return items.length ? h('ul', {}, ...items) : h('p', { class: 'muted' }, '(none)');
}

/**
 * The run's events as a windowed list: rows have one fixed height and only those in view (plus a
 * margin) exist in the DOM, so a run of 10,000 events scrolls as lightly as one of ten. It follows
 * the newest event while the reader is at the bottom, and stays put when they scrolled up.
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import { safeLine } from '../../reporters/safe-text.js';
import { h } from './dom.js';

const ROW_HEIGHT = 22;
const MARGIN_ROWS = 10;
const DETAIL_CHARS = 240;

const SKIP = new Set(['event', 'ts', 'seq', 'subloop', 'action_output']);

/** `state=check exit_code=1 …`: the event's fields, shown safely on one line. */
function detailOf(e: TimedEvent): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(e)) {
    if (SKIP.has(k) || v === undefined) continue;
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    parts.push(`${k}=${text}`);
  }
  const line = safeLine(parts.join(' '));
  return line.length > DETAIL_CHARS ? `${line.slice(0, DETAIL_CHARS)}…` : line;
}

export class Timeline {
  readonly el: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows: HTMLElement;
  private events: TimedEvent[] = [];
  private follow = true;
  private scheduled = false;

  constructor() {
    this.spacer = h('div', { class: 'timeline-spacer' });
    this.rows = h('div', { class: 'timeline-rows' });
    this.el = h('div', { class: 'timeline', tabindex: '0', 'aria-label': 'events' }, this.spacer, this.rows);
    this.el.addEventListener('scroll', () => {
      this.follow = this.el.scrollTop + this.el.clientHeight >= this.el.scrollHeight - ROW_HEIGHT;
      this.schedule();
    });
  }

  /** The events shown (the model's array: rows are drawn from it). */
  set(events: TimedEvent[]): void {
    this.events = events;
    this.schedule();
  }

  /** How many rows are in the DOM now (tests check the window). */
  get renderedRows(): number {
    return this.rows.childElementCount;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.render();
    });
  }

  private render(): void {
    const total = this.events.length;
    this.spacer.style.height = `${total * ROW_HEIGHT}px`;
    if (this.follow) this.el.scrollTop = this.el.scrollHeight;
    const first = Math.max(0, Math.floor(this.el.scrollTop / ROW_HEIGHT) - MARGIN_ROWS);
    const count = Math.ceil((this.el.clientHeight || 400) / ROW_HEIGHT) + 2 * MARGIN_ROWS;
    const last = Math.min(total, first + count);
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i += 1) {
      const e = this.events[i]!;
      const depth = e.subloop?.depth ?? 0;
      const name = h('span', { class: 'name' }, e.event);
      // Positions through the CSSOM: the page's CSP refuses style attributes.
      if (depth) name.style.paddingLeft = `${depth * 12}px`;
      const row = h(
        'div',
        { class: `row ev-${e.event}`, 'data-seq': String(e.seq) },
        h('span', { class: 'ts' }, e.ts.slice(11, 23)),
        name,
        h('span', { class: 'detail' }, detailOf(e)),
      );
      row.style.top = `${i * ROW_HEIGHT}px`;
      rows.push(row);
    }
    this.rows.replaceChildren(...rows);
  }
}

/**
 * A run's parallel states as its events tell them (`fanout_start`, `item_done`, `fanout_join`):
 * per state, how many items, which ended and how (with their child run's id), and the join's
 * verdict. The items running come from the run's status (their run ids are known before they
 * end), and are remembered: an item the status no longer names but whose `item_done` has not come
 * yet (the status is asked afresh, the events come in batches) stays listed as running, never
 * missing. Pure: no DOM, unit-tested.
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import type { RunStatusView } from '../server/wire.js';

export interface FanoutItem {
  index: number;
  outcome: string;
  runId?: string;
  error?: string;
}

export interface FanoutView {
  state: string;
  count: number;
  /** The loop its items run (absent for branches). */
  loop?: string;
  ended: Map<number, FanoutItem>;
  /** Items a status named running, with their child run's id (kept after they end). */
  started: Map<number, string>;
  verdict?: string;
}

/** Folds one event of the run itself (not of a sub-loop) into `fanouts` (by state). */
export function applyFanoutEvent(fanouts: Map<string, FanoutView>, e: TimedEvent): void {
  const f = e as unknown as Record<string, unknown>;
  const state = typeof f.state === 'string' ? f.state : '';
  if (e.event === 'fanout_start') {
    fanouts.set(state, {
      state,
      count: typeof f.count === 'number' ? f.count : 0,
      ...(typeof f.loop === 'string' ? { loop: f.loop } : {}),
      ended: new Map(),
      started: new Map(),
    });
  } else if (e.event === 'item_done') {
    const view = fanouts.get(state);
    if (!view || typeof f.index !== 'number') return;
    view.ended.set(f.index, {
      index: f.index,
      outcome: typeof f.outcome === 'string' ? f.outcome : '',
      ...(typeof f.run_id === 'string' ? { runId: f.run_id } : {}),
      ...(typeof f.error === 'string' ? { error: f.error } : {}),
    });
  } else if (e.event === 'fanout_join') {
    const view = fanouts.get(state);
    if (view && typeof f.verdict === 'string') view.verdict = f.verdict;
  }
}

/** An item that succeeded (its loop's `yes`). */
export function itemSucceeded(item: FanoutItem): boolean {
  return item.outcome === 'yes';
}

/**
 * done / failed / running counts of one parallel state, and the running items (ascending): those
 * the status names and those it named before whose end has not come yet (remembered in `view`).
 */
export function fanoutCounts(
  view: FanoutView,
  status: RunStatusView | null,
): {
  done: number;
  failed: number;
  running: number;
  waiting: number;
  runningIds: Array<{ index: number; runId: string }>;
} {
  const ended = [...view.ended.values()];
  const done = ended.filter(itemSucceeded).length;
  const failed = ended.length - done;
  if (status?.fanout?.state === view.state) for (const r of status.fanout.running) view.started.set(r.index, r.run_id);
  const runningIds =
    view.verdict === undefined
      ? [...view.started]
          .filter(([index]) => !view.ended.has(index))
          .sort(([a], [b]) => a - b)
          .map(([index, runId]) => ({ index, runId }))
      : [];
  const running = runningIds.length;
  const waiting = view.verdict === undefined ? Math.max(0, view.count - ended.length - running) : 0;
  return { done, failed, running, waiting, runningIds };
}

/** How many ended items a parallel state lists in the page (the counts cover all of them). */
const LISTED_ITEMS = 50;

/**
 * The ended items the page lists: those that did not succeed first (what a person looks for),
 * then the succeeded ones, each group by index, at most `limit` in all; `more`: how many are not
 * listed. A fan-out of 10,000 items lists 50 links, not 10,000.
 */
export function listedItems(view: FanoutView, limit = LISTED_ITEMS): { items: FanoutItem[]; more: number } {
  const failed: FanoutItem[] = [];
  const succeeded: FanoutItem[] = [];
  for (const item of view.ended.values()) (itemSucceeded(item) ? succeeded : failed).push(item);
  const byIndex = (a: FanoutItem, b: FanoutItem) => a.index - b.index;
  const items = [...failed.sort(byIndex), ...succeeded.sort(byIndex)].slice(0, limit);
  return { items, more: view.ended.size - items.length };
}

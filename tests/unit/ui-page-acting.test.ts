/**
 * The pure parts of the `ll-loop ui` page's acting and children: the re-run visits of a path,
 * context lines, the backoff of a stream reopened, the badge of an open run (waiting for a person,
 * paused, rate-limited, running), and a parallel state's counts from its events and the status.
 */
import { describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { contextLines, visitsOf } from '../../ui/page/act-forms.js';
import { applyFanoutEvent, fanoutCounts, listedItems, type FanoutView } from '../../ui/page/fanout-model.js';
import { liveBadge } from '../../ui/page/live-badge.js';
import { retryDelay } from '../../ui/page/retry.js';

const ev = (fields: Record<string, unknown>): TimedEvent => ({ seq: 1, ts: 'x', ...fields }) as unknown as TimedEvent;

describe('the ui page', () => {
  it('offers every visit of every state of the path for a re-run', () => {
    expect(visitsOf(['plan', 'work', 'plan', 'work', 'done'])).toEqual([
      'plan#1',
      'work#1',
      'plan#2',
      'work#2',
      'done#1',
    ]);
    expect(contextLines(' a=1 \n\nb=x=y\n')).toEqual(['a=1', 'b=x=y']);
  });

  it('reopens a stream after 0.5 s, doubling to 8 s', () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(retryDelay)).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('tells waiting for a person, paused, rate-limited and running apart', () => {
    const human = { state: 'review', prompt: 'p', ask: 'approval', since: new Date(0).toISOString() };
    expect(liveBadge(false, { phase: 'human', state: 'review', human }, 'review')).toMatchObject({
      kind: 'waiting',
      text: 'waiting for a person · review',
    });
    expect(
      liveBadge(false, { phase: 'paused', state: 'a', paused: { by: 'me@h', since: 'x', holding: true } }, 'a'),
    ).toEqual({
      kind: 'paused',
      text: 'paused by me@h · a',
    });
    expect(
      liveBadge(
        false,
        {
          phase: 'rate_limited',
          state: 'a',
          rate_limited: { kind: 'rate_limit', message: 'm', resumes_at: new Date(0).toISOString() },
        },
        'a',
      ).kind,
    ).toBe('rate_limited');
    expect(liveBadge(true, null, 'a')).toEqual({ kind: 'paused', text: 'paused on a handoff · a' });
    expect(liveBadge(false, null, 'a')).toEqual({ kind: 'running', text: 'running · a' });
  });

  it("counts a parallel state's items: done, failed, running, waiting", () => {
    const fanouts = new Map<string, FanoutView>();
    applyFanoutEvent(
      fanouts,
      ev({ event: 'fanout_start', state: 'fix', count: 5, max_workers: 2, fail_mode: 'all', loop: 'one' }),
    );
    applyFanoutEvent(fanouts, ev({ event: 'item_done', state: 'fix', index: 0, outcome: 'yes', run_id: 'r.fix.s.0' }));
    applyFanoutEvent(fanouts, ev({ event: 'item_done', state: 'fix', index: 2, outcome: 'no', run_id: 'r.fix.s.2' }));
    const status = {
      phase: 'running',
      state: 'fix',
      fanout: { state: 'fix', total: 5, done: 2, failed: 1, running: [{ index: 1, run_id: 'r.fix.s.1' }] },
    };
    const view = fanouts.get('fix')!;
    expect(fanoutCounts(view, status)).toEqual({
      done: 1,
      failed: 1,
      running: 1,
      waiting: 2,
      runningIds: [{ index: 1, runId: 'r.fix.s.1' }],
    });
    applyFanoutEvent(
      fanouts,
      ev({ event: 'fanout_join', state: 'fix', count: 5, succeeded: 4, failed: 1, verdict: 'no' }),
    );
    expect(fanoutCounts(view, null)).toMatchObject({ running: 0, waiting: 0 });
    expect(view.verdict).toBe('no');
  });

  it('keeps listing an item the status named running until its item_done comes', () => {
    const fanouts = new Map<string, FanoutView>();
    applyFanoutEvent(fanouts, ev({ event: 'fanout_start', state: 'fix', count: 6, loop: 'one' }));
    const view = fanouts.get('fix')!;
    const running = (indexes: number[]) => ({
      phase: 'parallel',
      state: 'fix',
      fanout: {
        state: 'fix',
        total: 6,
        done: 0,
        failed: 0,
        running: indexes.map((index) => ({ index, run_id: `r.fix.${index}` })),
      },
    });
    expect(fanoutCounts(view, running([0, 1, 2])).runningIds.map((r) => r.index)).toEqual([0, 1, 2]);
    // A fresher status: 0-2 ended, their item_done not here yet; 3-5 run.
    const counts = fanoutCounts(view, running([3, 4, 5]));
    expect(counts.runningIds.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(counts).toMatchObject({ running: 6, waiting: 0 });
    applyFanoutEvent(fanouts, ev({ event: 'item_done', state: 'fix', index: 1, outcome: 'yes', run_id: 'r.fix.1' }));
    expect(fanoutCounts(view, null).runningIds.map((r) => r.index)).toEqual([0, 2, 3, 4, 5]);
  });

  it('lists at most 50 ended items of 10,000, those that did not succeed first', () => {
    const fanouts = new Map<string, FanoutView>();
    applyFanoutEvent(fanouts, ev({ event: 'fanout_start', state: 'fix', count: 10_000, loop: 'one' }));
    for (let index = 0; index < 10_000; index++)
      applyFanoutEvent(
        fanouts,
        ev({ event: 'item_done', state: 'fix', index, outcome: index % 1000 === 999 ? 'no' : 'yes' }),
      );
    const view = fanouts.get('fix')!;
    const listed = listedItems(view);
    expect(listed.items).toHaveLength(50);
    expect(listed.more).toBe(9_950);
    expect(listed.items.slice(0, 10).map((i) => [i.index, i.outcome])).toEqual(
      Array.from({ length: 10 }, (_, k) => [k * 1000 + 999, 'no']),
    );
    expect(listed.items.slice(10, 13).map((i) => i.index)).toEqual([0, 1, 2]);
    expect(fanoutCounts(view, null)).toMatchObject({ done: 9_990, failed: 10 });
    expect(listedItems(view, 20_000)).toMatchObject({ more: 0 });
  });
});

/**
 * Pages of a followed history: a long poll may hand out a workflow task the server has not
 * persisted yet, and a later page starts at those ids again. The history read so far keeps each
 * event once, in id order, the newer page's version winning.
 */
import { describe, expect, it } from 'vitest';
import { appendPage, type HistoryEvent } from '../../runs/find/temporal-history.js';

function ev(id: number, type: string): HistoryEvent {
  return { eventId: id, eventType: type } as unknown as HistoryEvent;
}
const ids = (h: HistoryEvent[]) => h.map((e) => `${Number(e.eventId)}:${String(e.eventType)}`);

describe('appendPage', () => {
  it('appends pages that go on from the last id', () => {
    const h: HistoryEvent[] = [];
    appendPage(h, [ev(1, 'started'), ev(2, 'scheduled')]);
    appendPage(h, [ev(3, 'task_started'), ev(4, 'task_completed')]);
    expect(ids(h)).toEqual(['1:started', '2:scheduled', '3:task_started', '4:task_completed']);
  });

  it('replaces events a later page gives again, from its first id on', () => {
    const h: HistoryEvent[] = [];
    appendPage(h, [ev(1, 'started'), ev(2, 'scheduled'), ev(3, 'task_started')]);
    // The task at 2–3 was not persisted as first seen: the server gives 2 onwards anew.
    appendPage(h, [ev(2, 'scheduled'), ev(3, 'task_started'), ev(4, 'task_completed'), ev(5, 'update_accepted')]);
    expect(ids(h)).toEqual(['1:started', '2:scheduled', '3:task_started', '4:task_completed', '5:update_accepted']);
    appendPage(h, [ev(5, 'activity_completed')]);
    expect(ids(h)).toEqual(['1:started', '2:scheduled', '3:task_started', '4:task_completed', '5:activity_completed']);
  });

  it('ignores an empty page', () => {
    const h: HistoryEvent[] = [ev(1, 'started')];
    appendPage(h, []);
    expect(ids(h)).toEqual(['1:started']);
  });
});

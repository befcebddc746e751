/**
 * The process-wide table of a person's pause or steer as runs reported them (host/control-requests.ts):
 * an action's activity runs no quick actions after it once its run had one since it was scheduled.
 */
import { describe, expect, it } from 'vitest';
import { controlledSince, noteControls, onControl } from '../../host/control-requests.js';
import type { Snapshot } from '../../fsm/run/snapshot.js';

const running = (extra: Record<string, unknown> = {}) =>
  ({ status: 'running', current: 'fix', phase: 'action', ...extra }) as unknown as Snapshot;

describe('controls a run reported', () => {
  it('count from the report with a pause or steer on, for that run only, and only since the time asked', () => {
    noteControls('run-a', running(), 1_000);
    expect(controlledSince('run-a', 0, 1_000)).toBe(false);
    noteControls('run-a', running({ pause: { by: 'ann', since_ms: 1_500 } }), 2_000);
    expect(controlledSince('run-a', 1_900, 2_100)).toBe(true);
    expect(controlledSince('run-a', 2_001, 2_100)).toBe(false);
    expect(controlledSince('run-b', 0, 2_100)).toBe(false);
    noteControls('run-b', running({ steer: { to: 'done', by: 'ann', since_ms: 2_000 } }), 2_200);
    expect(controlledSince('run-b', 2_000, 2_300)).toBe(true);
  });

  it('ignore a finished run, and forget one after a day', () => {
    noteControls('run-c', { status: 'done', pause: { by: 'ann' } } as unknown as Snapshot, 5_000);
    expect(controlledSince('run-c', 0, 5_000)).toBe(false);
    noteControls('run-d', running({ pause: { by: 'ann', since_ms: 5_000 } }), 5_000);
    expect(controlledSince('run-d', 0, 5_000 + 24 * 3600 * 1000 + 1)).toBe(false);
    expect(controlledSince('run-d', 0, 5_000)).toBe(false);
  });

  it('tell who waits for a run each control it reports, that run only, until they stop waiting', () => {
    const heard: string[] = [];
    const stopA = onControl('run-e', () => heard.push('a'));
    const stopB = onControl('run-e', () => heard.push('b'));
    const stopOther = onControl('run-f', () => heard.push('other'));
    noteControls('run-e', running(), 6_000);
    expect(heard).toEqual([]);
    noteControls('run-e', running({ pause: { by: 'ann', since_ms: 6_000 } }), 6_100);
    expect(heard).toEqual(['a', 'b']);
    stopA();
    noteControls('run-e', running({ steer: { to: 'done', by: 'ann', since_ms: 6_200 } }), 6_200);
    expect(heard).toEqual(['a', 'b', 'b']);
    stopB();
    stopOther();
    noteControls('run-e', running({ pause: { by: 'ann', since_ms: 6_300 } }), 6_300);
    expect(heard).toEqual(['a', 'b', 'b']);
  });
});

/**
 * The worker's own sight of a run's stop (activities/stop-watch.ts, host/stop-requests.ts): a stop
 * asked through this process reaches the watch of that run's running action at once, and a watch
 * begun after it sees it from the start; another run's stop, or one after the watch ended, does not.
 * (The look at the run's description needs a server: tests/integration/quick-bursts.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { watchForStop } from '../../activities/stop-watch.js';
import { stopRequested, stopWasRequested } from '../../host/stop-requests.js';

describe('a stop asked through this worker', () => {
  it('reaches the watch of its run at once, and only that run', () => {
    const seen: string[] = [];
    const a = watchForStop('run-a', undefined, () => seen.push('a'));
    const b = watchForStop('run-b', undefined, () => seen.push('b'));
    stopRequested('run-a');
    expect(seen).toEqual(['a']);
    expect(a.stopped).toBe(true);
    expect(b.stopped).toBe(false);
    // Seen once: a second request does not call it again.
    stopRequested('run-a');
    expect(seen).toEqual(['a']);
    b.dispose();
    stopRequested('run-b');
    expect(seen).toEqual(['a']);
  });

  it('is seen by a watch begun after it (the next action of the same burst)', () => {
    stopRequested('run-c');
    expect(stopWasRequested('run-c')).toBe(true);
    expect(stopWasRequested('run-d')).toBe(false);
    let called = 0;
    const watch = watchForStop('run-c', undefined, () => (called += 1));
    expect(watch.stopped).toBe(true);
    expect(called).toBe(1);
    watch.dispose();
  });
});

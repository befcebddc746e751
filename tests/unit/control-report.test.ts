/**
 * What `pause`, `unpause` and `steer` tell the person once the run took the request: a steer to a
 * run that holds (paused) or waits for an answer acts at once, and says so; a busy run's steer
 * acts when its state ends.
 */
import { describe, expect, it } from 'vitest';
import { controlReport } from '../../reporters/control-report.js';

const steer = { kind: 'steer' as const, to: 'stopped' };

describe('the report of a steer', () => {
  it('of a run waiting for an answer: it goes at once, its question dropped unanswered', () => {
    const text = controlReport('r1', steer, { state: 'review', phase: 'human', holding: false }, 'ann@host');
    expect(text).toBe('steered r1 to stopped (by ann@host): the question of state review is dropped unanswered');
    expect(text).not.toContain('once state');
  });

  it('of a paused run: at once', () => {
    expect(controlReport('r1', steer, { state: 'build', phase: 'paused', holding: true }, 'ann@host')).toBe(
      'steered r1 to stopped (by ann@host)',
    );
  });

  it('of a run at work: when its state ends', () => {
    expect(controlReport('r1', steer, { state: 'build', phase: 'action', holding: false }, 'ann@host')).toBe(
      'steered r1 (by ann@host): once state build ends, the run goes to stopped',
    );
  });
});

describe('the report of a pause', () => {
  const pause = { kind: 'pause' as const };
  it('of a run waiting for an answer: the question stays open, the run holds once answered', () => {
    const text = controlReport('r1', pause, { state: 'review', phase: 'human', holding: false }, 'ann@host');
    expect(text).toBe(
      'paused r1 (by ann@host): state review still waits for its answer (ll-loop answer r1 … works as before); once it is answered, the run holds before its next state\n  unpause: ll-loop unpause r1',
    );
    expect(text).not.toContain('its human');
  });

  it('of a run at work: its work finishes, in words', () => {
    expect(controlReport('r1', pause, { state: 'build', phase: 'action', holding: false }, 'ann@host')).toBe(
      'paused r1 (by ann@host): state build finishes its action, then the run holds\n  unpause: ll-loop unpause r1',
    );
    expect(controlReport('r1', pause, { state: 'build', phase: 'retry_delay', holding: false }, 'ann@host')).toContain(
      'state build finishes its wait and its retry, then the run holds',
    );
    expect(controlReport('r1', pause, { state: 'build', phase: 'paused', holding: true }, 'ann@host')).toBe(
      'paused r1 (by ann@host): it holds in state build\n  unpause: ll-loop unpause r1',
    );
  });
});

describe('the report of a control that reached quick actions running back to back (a burst)', () => {
  const quick = { state: 'a', phase: 'action', holding: false, after_quick: true as const };
  it('a pause: they finish first, then the run holds', () => {
    expect(controlReport('r1', { kind: 'pause' }, quick, 'ann@host')).toBe(
      'paused r1 (by ann@host): quick actions run back to back from state a: the one running, and any that start within a second, finish first; then the run holds before its next state\n  unpause: ll-loop unpause r1',
    );
  });
  it('a steer: they finish first, then the run goes where it was steered', () => {
    expect(controlReport('r1', steer, quick, 'ann@host')).toBe(
      'steered r1 (by ann@host): quick actions run back to back from state a: the one running, and any that start within a second, finish first; then the run goes to stopped',
    );
  });
});

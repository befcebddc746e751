/** What `ll-loop status` says beside "paused:" of a run paused while it does something else (client/commands/status.ts). */
import { describe, expect, it } from 'vitest';
import { pausedUntil } from '../../client/commands/status.js';

const paused = { by: 'ann@host', since: '2026-12-02T00:00:00.000Z', unpause: 'll-loop unpause r1', holding: false };

describe('a paused run in status', () => {
  it('holds once its action ends, once its question is answered, once its handoff is resumed, or holds already', () => {
    expect(pausedUntil(paused, 'action')).toBe('holds once its action ends');
    expect(pausedUntil(paused, 'human')).toBe('holds once its question is answered');
    expect(pausedUntil(paused, 'handoff')).toBe('holds once ll-loop resume continues it (a handoff)');
    expect(pausedUntil({ ...paused, holding: true, next: 'build' }, 'paused')).toBe('holding before build');
  });
});

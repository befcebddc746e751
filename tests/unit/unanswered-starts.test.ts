/**
 * The worker's count of starts its scope lock has not answered yet (worker/socket/unanswered-starts.ts):
 * which later starts it refuses before they are made. The lock's answer itself (started()) is the
 * e2e tier's (tests/e2e/background-queue.test.ts).
 */
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { UnansweredStarts } from '../../worker/socket/unanswered-starts.js';
import { ScopeBusyError } from '../../runs/scopes/scope-busy-error.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';

const lock = (scopes: string[], over: Partial<ScopeLockRequest> = {}): ScopeLockRequest => ({
  domain: 'checkout:host:/p',
  workflowId: 'll-loop-lock.abc',
  taskQueue: 'q',
  scopes,
  wait: false,
  ...over,
});

const starts = () => new UnansweredStarts({} as Client);

describe('UnansweredStarts', () => {
  it('refuses a start whose scopes overlap a counted one (exit 8, naming it), as the precheck does', () => {
    const s = starts();
    const first = s.reserve('a-1', lock(['src']));
    first.rename('a-1-2');
    let err: unknown;
    try {
      s.reserve('b-1', lock(['src/lib']));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScopeBusyError);
    expect((err as ScopeBusyError).exitCode).toBe(EXIT.scopeBusy);
    expect((err as Error).message).toBe('scope src/lib is busy: queued for by a-1-2 (scope src); nothing was started');
    expect(s.size).toBe(1);
  });

  it('lets through a start that waits, one of other scopes or another lock, one after a drop, and none without a lock', () => {
    const s = starts();
    const first = s.reserve('a-1', lock(['src']));
    const waiter = s.reserve('w-1', lock(['src'], { wait: true }));
    s.reserve('d-1', lock(['docs']));
    s.reserve('o-1', lock(['src'], { workflowId: 'll-loop-lock.other' }));
    s.reserve('n-1', undefined);
    expect(s.size).toBe(4);
    expect(() => s.reserve('c-1', lock(['src']))).toThrow(ScopeBusyError);
    // A waiter ahead is in the way too (the lock would deny a start behind it).
    first.drop();
    expect(() => s.reserve('c-2', lock(['src']))).toThrow(/queued for by w-1/);
    waiter.drop();
    expect(() => s.reserve('c-3', lock(['src']))).not.toThrow();
    // Unchecked: a predecessor's queued starts, counted whatever they overlap.
    expect(() => s.reserve('c-4', lock(['src']), false)).not.toThrow();
  });
});

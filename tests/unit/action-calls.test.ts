/**
 * The run's names for its action calls (workflows/action-calls.ts): one per call, the same for
 * every schedule of a call while its place is the same, a new one after a portable run's claim.
 */
import { describe, expect, it } from 'vitest';
import { ActionCalls } from '../../workflows/action-calls.js';

describe('action call names', () => {
  it('each call has a name of its own, shared by all its schedules', () => {
    const calls = new ActionCalls({ claims: 0 });
    const first = calls.next();
    expect(first()).toEqual({ call_key: '1.0' });
    expect(first()).toEqual({ call_key: '1.0' });
    expect(calls.next()()).toEqual({ call_key: '2.0' });
  });

  it("a portable run's call claimed on another checkout is named anew", () => {
    const placement = { claims: 1 };
    const call = new ActionCalls(placement).next();
    expect(call()).toEqual({ call_key: '1.1' });
    placement.claims = 2;
    expect(call()).toEqual({ call_key: '1.2' });
  });
});

import { describe, expect, it } from 'vitest';
import { closing, outcomeOf } from '../../fsm/run/outcome.js';
import type { ExecutionResult, TerminatedBy } from '../../fsm/types.js';

function result(terminated_by: TerminatedBy, failure = false): ExecutionResult {
  return { loop: 'l', final_state: 's', iterations: 3, steps: 3, terminated_by, failure, duration_ms: 1, captured: {} };
}

describe('how a run ends, from outside', () => {
  it('names each outcome (the LoopStatus values)', () => {
    expect(outcomeOf(result('terminal'))).toBe('succeeded');
    expect(outcomeOf(result('terminal', true))).toBe('failed');
    expect(outcomeOf(result('max_iterations'))).toBe('limit');
    expect(outcomeOf(result('max_steps'))).toBe('limit');
    expect(outcomeOf(result('timeout'))).toBe('timed_out');
    expect(outcomeOf(result('error'))).toBe('error');
    expect(outcomeOf(result('cancelled'))).toBe('stopped');
  });

  it('completes only a success terminal, cancels a stopped run, fails the rest', () => {
    const rules = {};
    expect(closing(result('terminal'), rules)).toEqual({ kind: 'complete' });
    expect(closing(result('cancelled'), rules)).toEqual({ kind: 'cancel' });
    expect(closing(result('terminal', true), rules)).toEqual({
      kind: 'fail',
      message: 'loop l: ended in failure state "s"',
    });
    expect(closing(result('max_iterations'), rules)).toEqual({
      kind: 'fail',
      message: 'loop l: max_iterations reached in state "s" after 3 passes',
    });
    expect(closing(result('timeout'), rules)).toMatchObject({ kind: 'fail' });
    expect(closing({ ...result('error'), error: 'no route for verdict progress' }, rules)).toEqual({
      kind: 'fail',
      message: 'loop l: no route for verdict progress',
    });
  });

  it('a stopped sub-loop completes (its parent needs what it captured), its failures still fail', () => {
    expect(closing(result('cancelled'), { child: true })).toEqual({ kind: 'complete' });
    expect(closing(result('terminal', true), { child: true })).toMatchObject({ kind: 'fail' });
  });
});

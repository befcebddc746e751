/**
 * One set of outcome words (reporters/outcome-words.ts) for the CLI, the ui server and its
 * page: a listed run's outcome, a closed run's without a loop result, the end line and Stop's
 * answer the page shows, and `ll-loop status`'s first line of a closed run.
 */
import { describe, expect, it } from 'vitest';
import { closedHeadline } from '../../client/commands/status.js';
import { closedWithoutResult } from '../../runs/follow/closed-without-result.js';
import { itemOutcome, listedOutcome, loopOutcome, outcomeOfStatus } from '../../reporters/outcome-words.js';
import type { ExecutionResult } from '../../fsm/types.js';
import { runEndView, stopAnswer } from '../../ui/server/run-end.js';

const result = (over: Partial<ExecutionResult>): ExecutionResult => ({
  loop: 'demo',
  final_state: 'check',
  iterations: 2,
  steps: 3,
  terminated_by: 'terminal',
  failure: false,
  duration_ms: 1200,
  captured: {},
  ...over,
});

describe('the outcome words', () => {
  it('says how a loop ended as LoopStatus does', () => {
    expect(loopOutcome({ terminated_by: 'terminal' })).toBe('succeeded');
    expect(loopOutcome({ terminated_by: 'terminal', failure: true })).toBe('failed');
    expect(loopOutcome({ terminated_by: 'error' })).toBe('error');
    expect(loopOutcome({ terminated_by: 'cancelled' })).toBe('stopped');
    expect(loopOutcome({ terminated_by: 'max_iterations' })).toBe('limit');
  });

  it("gives a run known only by its workflow's status the outcome that status means", () => {
    expect(['COMPLETED', 'canceled', 'TERMINATED', 'TIMED_OUT', 'FAILED', 'running'].map(outcomeOfStatus)).toEqual([
      'succeeded',
      'stopped',
      'stopped',
      'timed_out',
      'failed',
      'running',
    ]);
  });

  it('lists a run by its LoopStatus, unless its closed workflow contradicts it', () => {
    expect(listedOutcome({ status: 'FAILED', open: false, loopStatus: 'error' })).toBe('error');
    expect(listedOutcome({ status: 'RUNNING', open: true, loopStatus: 'waiting' })).toBe('waiting');
    // Terminated while it ran: LoopStatus still says running.
    expect(listedOutcome({ status: 'TERMINATED', open: false, loopStatus: 'running' })).toBe('stopped');
    // 0.3.0 and older wrote `done` whatever the outcome.
    expect(listedOutcome({ status: 'COMPLETED', open: false, loopStatus: 'done' })).toBe('succeeded');
  });

  it("says a fan-out item's verdict in the same words", () => {
    expect(['yes', 'no', 'cancelled', 'error', 'skipped'].map(itemOutcome)).toEqual([
      'succeeded',
      'failed',
      'stopped',
      'error',
      'skipped',
    ]);
  });

  it('gives the page the outcome of a crashed run and its end line whole, as ll-loop status prints it', () => {
    const error = 'state "check" has no route for verdict "maybe" (fix: add on_maybe: or a route for it)';
    const failed = result({ terminated_by: 'error', error });
    const view = runEndView('demo-1', { status: 'failed', reason: 'loop demo: …', result: failed });
    expect(view.outcome).toBe('error');
    expect(view.status).toBe('failed');
    expect(view.summary).toContain('Loop failed in state check (2 iterations');
    expect(view.summary).toContain(error);
    expect(runEndView('demo-2', { status: 'completed', result: result({}) })).toMatchObject({
      outcome: 'succeeded',
      summary: expect.stringContaining('Loop completed: check') as unknown,
    });
    expect(runEndView('demo-3', { status: 'terminated', reason: 'stopped with ll-loop stop --force' })).toEqual({
      status: 'terminated',
      outcome: 'stopped',
      summary: 'it ended without a loop result (terminated in Temporal: stopped with ll-loop stop --force)',
    });
  });

  it('gives the page the end of a run refused its scopes as ll-loop status says it, with the fix', () => {
    const failure = {
      type: 'ScopeBusy',
      message: 'scope . is busy: held by demo-0 (scope .)',
      details: { scopes: ['.'], blockers: [{ run: 'demo-0', scopes: ['.'], holds: true }], reason: 'busy' },
    };
    const view = runEndView('demo-4', { status: 'failed', reason: failure.message, failure });
    expect(view.outcome).toBe('failed');
    expect(view.summary).toBe(
      'run demo-4 did not start: scope . is busy: held by demo-0 (scope .): nothing of the loop ran\n' +
        'fix: wait for your turn instead: run it again with --queue (or --queue-timeout 10m); see who holds what with ll-loop queue list, or stop demo-0 with ll-loop stop demo-0',
    );
    expect(view.summary).toBe(closedWithoutResult('demo-4', 'failed', failure));
  });

  it("answers Stop as ll-loop stop says it, never with the loop's cancelled", () => {
    const stopped = stopAnswer({
      id: 'demo-1',
      outcome: 'cancelled',
      status: 'canceled',
      result: result({ terminated_by: 'cancelled', final_state: 'work' }),
    });
    expect(stopped).toMatch(/^stopped demo-1: Loop stopped in state work \(2 iterations/);
    expect(stopped).not.toMatch(/cancel/);
    expect(stopAnswer({ id: 'demo-2', outcome: 'terminal', status: 'completed', result: result({}) })).toMatch(
      /^demo-2 ended before the stop took effect \(succeeded\): Loop completed/,
    );
  });

  it("heads ll-loop status of a closed run with its outcome, not Temporal's status", () => {
    const base = { id: 'demo-1', loop: 'demo', open: false, started_at: new Date(0).toISOString() };
    expect(closedHeadline({ ...base, status: 'canceled', result: result({ terminated_by: 'cancelled' }) })).toMatch(
      /^run demo-1 · stopped \(started /,
    );
    expect(closedHeadline({ ...base, status: 'failed', result: result({ terminated_by: 'error' }) })).toMatch(
      /^run demo-1 · error \(started /,
    );
    expect(closedHeadline({ ...base, status: 'completed', result: result({}) })).toMatch(/^run demo-1 · succeeded /);
    expect(closedHeadline({ ...base, status: 'terminated' })).toMatch(/^run demo-1 · stopped /);
  });
});

/** What a command says when a name matches no run (runs/find/find-runs.ts RunNotFoundError). */
import { describe, expect, it } from 'vitest';
import { RunNotFoundError } from '../../runs/find/find-runs.js';

describe('no run matches', () => {
  it('a loop of the project that never ran: says so, and how to start one', () => {
    const e = new RunNotFoundError('fix-types', 'run', [], '/p/.loops/fix-types.yaml');
    expect(e.message).toBe('loop fix-types has no runs here yet');
    expect(e.fix).toBe('start one: ll-loop run fix-types (ll-loop list --running shows the runs under way)');
  });

  it('a name that is no loop: as before', () => {
    const e = new RunNotFoundError('nosuch', 'run');
    expect(e.message).toBe('no run matches "nosuch"');
    expect(e.fix).toContain('check the loop name or run id');
  });
});

describe('a run that has ended, where an open one was needed (stop)', () => {
  it('names its outcome in the words status and list use: stopped, not cancelled', async () => {
    const { RunNotOpenError } = await import('../../runs/find/run-target.js');
    const run = { id: 'x-1', status: 'CANCELED', loop: 'x', startTime: new Date(0) } as never;
    expect(new RunNotOpenError('x-1', run).message).toBe('run x-1 has already finished (stopped)');
    const failed = { id: 'x-2', status: 'FAILED', loop: 'x', startTime: new Date(0), loopStatus: 'limit' } as never;
    expect(new RunNotOpenError('x', failed).message).toBe(
      'loop "x" has no open run; its latest run x-2 has already finished (limit)',
    );
  });
});

/**
 * little-loops' run-time limits in the pure core (fsm/run/original-limits.ts): max_retries and
 * on_retry_exhausted, retryable_exit_codes, on_max_steps and on_max_iterations. Loops written here.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

describe('max_retries / on_retry_exhausted', () => {
  const flaky = def(
    loop({
      work: { action: 'make', on_yes: 'done', on_no: 'work', max_retries: 2, on_retry_exhausted: 'gave_up' },
      gave_up: { terminal: true, failure: true },
    }),
  );

  it('re-enters the state max_retries times, then goes to on_retry_exhausted', () => {
    const run = drive(flaky, { actions: { work: [{ exit_code: 1 }] } });
    expect(run.entered).toEqual(['work', 'work', 'work', 'gave_up']);
    expect(eventsNamed(run, 'route').at(-1)).toEqual({
      event: 'route',
      from: 'work',
      to: 'gave_up',
      verdict: 'retry_exhausted',
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'gave_up', failure: true });
  });

  it('a success within the retries routes as usual', () => {
    const run = drive(flaky, { actions: { work: [{ exit_code: 1 }, { exit_code: 1 }, { exit_code: 0 }] } });
    expect(run.entered).toEqual(['work', 'work', 'work', 'done']);
  });

  it('the count is of re-entries in a row: leaving the state starts it again', () => {
    const bouncing = def(
      loop(
        {
          work: { action: 'make', on_yes: 'done', on_no: 'work', max_retries: 1, on_retry_exhausted: 'other' },
          other: { action: 'true', next: 'work' },
        },
        { max_iterations: 10 },
      ),
    );
    const run = drive(bouncing, {
      actions: { work: [{ exit_code: 1 }, { exit_code: 1 }, { exit_code: 1 }, { exit_code: 0 }] },
    });
    // After other, work may re-enter itself once more before it is exhausted again.
    expect(run.entered).toEqual(['work', 'work', 'other', 'work', 'work', 'done']);
  });
});

describe('retryable_exit_codes', () => {
  const selective = def(
    loop({
      work: {
        action: 'make',
        next: 'done',
        on_error: 'work',
        max_retries: 3,
        on_retry_exhausted: 'gave_up',
        retryable_exit_codes: [75],
      },
      gave_up: { terminal: true, failure: true },
    }),
  );

  it('a listed code is retried', () => {
    const run = drive(selective, { actions: { work: [{ exit_code: 75 }, { exit_code: 0 }] } });
    expect(run.entered).toEqual(['work', 'work', 'done']);
  });

  it('a code not listed is not retried: it goes to on_retry_exhausted at once', () => {
    const run = drive(selective, { actions: { work: [{ exit_code: 2 }] } });
    expect(run.entered).toEqual(['work', 'gave_up']);
  });

  it('without on_retry_exhausted the run ends with an error naming the code', () => {
    const bare = def(loop({ work: { action: 'make', next: 'done', on_error: 'work', retryable_exit_codes: [75] } }));
    const run = drive(bare, { actions: { work: [{ exit_code: 2 }] } });
    expect(run.result).toMatchObject({ terminated_by: 'error' });
    expect(run.result.error).toMatch(/exit code 2 is not in retryable_exit_codes \(75\)/);
  });
});

describe('on_max_steps / on_max_iterations', () => {
  it('the step cap sends the run to on_max_steps once, which may still reach a terminal', () => {
    const spinning = def(
      loop(
        {
          work: { action: 'make', on_yes: 'done', on_no: 'work' },
          wrap_up: { action: 'echo wrap', next: 'stopped' },
          stopped: { terminal: true, failure: true },
        },
        { max_steps: 3, on_max_steps: 'wrap_up' },
      ),
    );
    const run = drive(spinning, { actions: { work: [{ exit_code: 1 }] } });
    expect(run.entered).toEqual(['work', 'work', 'work', 'wrap_up', 'stopped']);
    expect(eventsNamed(run, 'route')).toContainEqual({
      event: 'route',
      from: 'work',
      to: 'wrap_up',
      verdict: 'max_steps',
    });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'stopped' });
  });

  it('a handler that never ends gets as many steps as the loop has states', () => {
    const stuck = def(
      loop({ work: { action: 'make', on_yes: 'done', on_no: 'work' } }, { max_steps: 2, on_max_steps: 'work' }),
    );
    const run = drive(stuck, { actions: { work: [{ exit_code: 1 }] } });
    expect(run.entered).toHaveLength(2 + 2);
    expect(run.result).toMatchObject({ terminated_by: 'max_steps' });
  });

  it('the pass cap sends the run to on_max_iterations once', () => {
    const passes = def(
      loop(
        {
          work: { action: 'make', on_yes: 'done', on_no: 'work' },
          report: { action: 'echo report', next: 'done' },
        },
        { max_iterations: 2, on_max_iterations: 'report' },
      ),
    );
    const run = drive(passes, { actions: { work: [{ exit_code: 1 }] } });
    expect(run.entered).toEqual(['work', 'work', 'report', 'done']);
    expect(eventsNamed(run, 'route')).toContainEqual({
      event: 'route',
      from: 'work',
      to: 'report',
      verdict: 'max_iterations',
    });
  });

  it('a loop without them ends at the cap as before', () => {
    const plain = def(loop({ work: { action: 'make', on_yes: 'done', on_no: 'work' } }, { max_steps: 2 }));
    const run = drive(plain, { actions: { work: [{ exit_code: 1 }] } });
    expect(run.entered).toEqual(['work', 'work']);
    expect(run.result).toMatchObject({ terminated_by: 'max_steps' });
  });

  it('a handler that is not a state is an error with a did-you-mean; one that is counts as reachable', () => {
    const bad = validateLoop(loop({ work: { action: 'make', next: 'done' } }, { on_max_steps: 'dnoe' }));
    expect(bad.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([
      'on_max_steps goes to "dnoe", which is not a state (did you mean "done"?)',
    ]);
    const good = validateLoop(
      loop(
        { work: { action: 'make', next: 'done' }, wrap_up: { action: 'x', next: 'done' } },
        { on_max_steps: 'wrap_up' },
      ),
    );
    expect(good.diagnostics.filter((d) => /unreachable/.test(d.message))).toEqual([]);
  });
});

describe('score_stall reads its history file on the worker', () => {
  const scored = (evaluate: Record<string, unknown>, context: Record<string, unknown> = {}) =>
    def(
      loop(
        {
          score: {
            action: 'make score',
            evaluate: { type: 'score_stall', ...evaluate },
            on_yes: 'score',
            on_no: 'done',
          },
        },
        { context },
      ),
    );

  it('history_file (a template) is asked of the worker, and its text is judged instead of the output', () => {
    const run = drive(scored({ history_file: '${context.dir}/h.txt' }, { dir: 'out' }), {
      actions: {
        score: [
          { output: 'not a number', read_after: { text: '1\n5\n' } },
          { output: 'not a number', read_after: { text: '1\n5\n5.1\n' } },
        ],
      },
    });
    expect(run.actions.map((a) => (a as { read_after?: string }).read_after)).toEqual(['out/h.txt', 'out/h.txt']);
    expect(eventsNamed(run, 'evaluate').map((e) => e.verdict)).toEqual(['yes', 'no']);
  });

  it("little-loops' default is ${context.run_dir}/.score_history when the run has one", () => {
    const run = drive(scored({}, { run_dir: 'rd' }), { actions: { score: [{ read_after: { text: '3\n3\n' } }] } });
    expect((run.actions[0] as { read_after?: string }).read_after).toBe('rd/.score_history');
    expect(eventsNamed(run, 'evaluate').map((e) => e.verdict)).toEqual(['no']);
  });

  it('without either, the output is judged and nothing is read', () => {
    const run = drive(scored({}), { actions: { score: [{ output: '2\n2\n' }] } });
    expect(run.actions[0]).not.toHaveProperty('read_after');
    expect(eventsNamed(run, 'evaluate').map((e) => e.verdict)).toEqual(['no']);
  });

  it('a file the worker could not read is an error verdict', () => {
    const run = drive(scored({ history_file: 'h' }), {
      actions: { score: [{ read_after: { error: 'cannot read h: EACCES' } }] },
    });
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({ verdict: 'error' });
  });
});

describe('open_question_stall reads its history file like score_stall', () => {
  it("little-loops' default is ${context.run_dir}/.open_questions_history", () => {
    const d = def(
      loop(
        {
          ask: { action: 'count', evaluate: { type: 'open_question_stall' }, on_yes: 'ask', on_no: 'done' },
        },
        { context: { run_dir: 'rd' } },
      ),
    );
    const run = drive(d, { actions: { ask: [{ read_after: { text: '3\n3\n' } }] } });
    expect((run.actions[0] as { read_after?: string }).read_after).toBe('rd/.open_questions_history');
    expect(eventsNamed(run, 'evaluate').map((e) => e.verdict)).toEqual(['no']);
  });
});

/**
 * Author retries (`retry:` on a state), in the pure core: which attempts fail, the delays, the
 * events and commands, and that retries are neither passes nor steps.
 */
import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../fsm/run/retry.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { begin, def, drive, eventsNamed, loop, next } from './helpers.js';

const sleeps = (run: ReturnType<typeof drive>) => run.commands.filter((c) => c.type === 'sleep');

describe('retry without on: (a non-zero exit fails the attempt)', () => {
  const flaky = def(
    loop({ fetch: { action: 'curl -f x', retry: { attempts: 3, backoff: 0.2 }, on_yes: 'done', on_no: 'done' } }),
  );

  it('re-runs the action after durable sleeps until it exits 0, within one step and one pass', () => {
    const run = drive(flaky, { actions: { fetch: [{ exit_code: 7 }, { exit_code: 1 }, { exit_code: 0 }] } });
    expect(run.actions).toHaveLength(3);
    expect(eventsNamed(run, 'action_retry')).toEqual([
      { event: 'action_retry', state: 'fetch', attempt: 1, attempts: 3, delay_ms: 200, exit_code: 7 },
      { event: 'action_retry', state: 'fetch', attempt: 2, attempts: 3, delay_ms: 400, exit_code: 1 },
    ]);
    expect(sleeps(run)).toEqual([
      { type: 'sleep', ms: 200, reason: 'retry' },
      { type: 'sleep', ms: 400, reason: 'retry' },
    ]);
    expect(run.entered).toEqual(['fetch', 'done']);
    expect(eventsNamed(run, 'action_start').map((e) => e.attempt)).toEqual([undefined, 2, 3]);
    // Failed attempts are not evaluated: one evaluation, of the last attempt.
    expect(eventsNamed(run, 'evaluate')).toEqual([expect.objectContaining({ verdict: 'yes' })]);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', iterations: 1, steps: 2 });
    expect(run.snapshots.some((s) => s.phase === 'retry_delay')).toBe(true);
  });

  it('when every attempt fails, the last result is evaluated and routed as usual', () => {
    const run = drive(flaky, { actions: { fetch: [{ exit_code: 1 }] } });
    expect(run.actions).toHaveLength(3);
    expect(eventsNamed(run, 'action_retry')).toHaveLength(2);
    expect(eventsNamed(run, 'evaluate')).toEqual([expect.objectContaining({ verdict: 'no' })]);
    expect(eventsNamed(run, 'route')).toEqual([{ event: 'route', from: 'fetch', to: 'done', verdict: 'no' }]);
  });

  it('a first attempt that succeeds is not retried', () => {
    const run = drive(flaky, { actions: { fetch: [{ exit_code: 0 }] } });
    expect(run.actions).toHaveLength(1);
    expect(eventsNamed(run, 'action_retry')).toEqual([]);
  });

  it('retries a timeout (exit 124) and an action that could not run', () => {
    const run = drive(flaky, {
      actions: {
        fetch: [
          { exit_code: 124, timed_out: true },
          { exit_code: 2, error: 'environment variable TOKEN is not set' },
          { exit_code: 0 },
        ],
      },
    });
    expect(eventsNamed(run, 'action_retry').map((e) => [e.exit_code, e.error])).toEqual([
      [124, undefined],
      [2, 'environment variable TOKEN is not set'],
    ]);
    expect(run.result.terminated_by).toBe('terminal');
  });

  it('retries an activity that failed after its infrastructure retry (action_failed)', () => {
    const run = drive(flaky, {
      interrupt: { atAction: 1, event: 'action_failed', error: 'worker lost' },
      actions: { fetch: [{ exit_code: 0 }] },
    });
    expect(eventsNamed(run, 'action_retry')).toEqual([
      expect.objectContaining({ attempt: 1, error: 'action could not run: worker lost' }),
    ]);
    expect(eventsNamed(run, 'action_error')).toEqual([]);
    expect(run.entered).toEqual(['fetch', 'done']);
  });

  it('does not retry an action that cannot be rendered (nothing ran)', () => {
    const d = def(
      loop({ a: { action: 'echo ${prev.output}', retry: { attempts: 3 }, on_yes: 'done', on_error: 'done' } }),
    );
    const run = drive(d);
    expect(run.actions).toHaveLength(0);
    expect(eventsNamed(run, 'action_retry')).toEqual([]);
    expect(eventsNamed(run, 'evaluate')).toEqual([expect.objectContaining({ verdict: 'error' })]);
  });

  it('backoff grows by backoff_coefficient up to max_backoff', () => {
    const d = def(
      loop({
        a: {
          action: 'x',
          retry: { attempts: 5, backoff: 1, backoff_coefficient: 3, max_backoff: 5 },
          on_yes: 'done',
          on_no: 'done',
        },
      }),
    );
    const run = drive(d, { actions: { a: [{ exit_code: 1 }] } });
    expect(sleeps(run).map((c) => (c.type === 'sleep' ? c.ms : 0))).toEqual([1000, 3000, 5000, 5000]);
    expect(retryDelayMs({ attempts: 3, backoff: 1, backoff_coefficient: 2 }, 1)).toBe(1000);
    expect(retryDelayMs({ attempts: 3, backoff: 1, backoff_coefficient: 2 }, 3)).toBe(4000);
  });

  it('backoff: 0 starts the next attempt at once, without a sleep', () => {
    const d = def(loop({ a: { action: 'x', retry: { attempts: 2, backoff: 0 }, on_yes: 'done', on_no: 'done' } }));
    const run = drive(d, { actions: { a: [{ exit_code: 1 }, { exit_code: 0 }] } });
    expect(sleeps(run)).toEqual([]);
    expect(run.actions).toHaveLength(2);
  });

  it('applies to next: states (then on_error/next as usual) and terminal states', () => {
    const d = def(
      loop({
        a: { action: 'x', retry: { attempts: 2, backoff: 0 }, next: 'b', on_error: 'done' },
        b: { action: 'y', retry: { attempts: 2, backoff: 0 }, terminal: true },
      }),
    );
    const run = drive(d, {
      actions: { a: [{ exit_code: 1 }, { exit_code: 0 }], b: [{ exit_code: 3 }, { exit_code: 0 }] },
    });
    expect(eventsNamed(run, 'action_retry').map((e) => e.state)).toEqual(['a', 'b']);
    expect(run.result).toMatchObject({ final_state: 'b', terminated_by: 'terminal' });
    const exhausted = drive(d, { actions: { a: [{ exit_code: 1 }] } });
    expect(exhausted.entered).toEqual(['a', 'done']);
  });

  it('each execution of a state gets its own attempts; retries count neither passes nor steps', () => {
    const d = def(
      loop({ a: { action: 'x', retry: { attempts: 2, backoff: 0 }, on_yes: 'a', on_no: 'done' } }, { max_steps: 3 }),
    );
    const run = drive(d, {
      actions: {
        a: [{ exit_code: 1 }, { exit_code: 0 }, { exit_code: 1 }, { exit_code: 0 }, { exit_code: 1 }, { exit_code: 0 }],
      },
    });
    expect(eventsNamed(run, 'action_retry').map((e) => e.attempt)).toEqual([1, 1, 1]);
    expect(run.actions).toHaveLength(6);
    expect(run.result).toMatchObject({ terminated_by: 'max_steps', steps: 3, iterations: 3 });
  });

  it('capture holds the last attempt', () => {
    const d = def(
      loop({ a: { action: 'x', capture: 'out', retry: { attempts: 2, backoff: 0 }, on_yes: 'done', on_no: 'done' } }),
    );
    const run = drive(d, {
      actions: {
        a: [
          { exit_code: 1, output: 'first\n' },
          { exit_code: 0, output: 'second\n' },
        ],
      },
    });
    expect(run.result.captured.out).toMatchObject({ output: 'second', exit_code: 0 });
  });

  it('the loop timeout or a cancellation ends a run waiting between attempts', () => {
    const d = def(
      loop({ a: { action: 'x', retry: { attempts: 3, backoff: 60 }, on_yes: 'done', on_no: 'done' } }, { timeout: 30 }),
    );
    let out = begin(d);
    out = next(d, out, {
      type: 'action_done',
      result: { output: '', stderr: '', exit_code: 1, duration_ms: 1 },
      now: 10,
    });
    expect(out.snapshot).toMatchObject({ status: 'running', phase: 'retry_delay', attempt: 2, steps: 1 });
    expect(out.effect).toEqual({ type: 'sleep', ms: 60_000, reason: 'retry' });
    const timedOut = next(d, out, { type: 'timeout', now: 30_000 });
    expect(timedOut.effect).toMatchObject({ type: 'finish', result: { terminated_by: 'timeout', final_state: 'a' } });
    // A snapshot carried across continue-as-new resumes the retry where it was.
    const resumed = next(d, JSON.parse(JSON.stringify(out)) as typeof out, { type: 'sleep_done', now: 60_010 });
    expect(resumed.events.find((e) => e.event === 'action_start')).toMatchObject({ attempt: 2 });
    expect(resumed.effect).toMatchObject({ type: 'run_action', input: { state: 'a', step: 1 } });
  });
});

describe('retry with on: (listed verdicts fail the attempt)', () => {
  it('retries only the listed verdicts: exit 2+ (error) but not exit 1 (no)', () => {
    const d = def(
      loop({
        test: {
          action: 'pytest',
          retry: { attempts: 3, backoff: 0, on: ['error'] },
          on_yes: 'done',
          on_no: 'done',
          on_error: 'done',
        },
      }),
    );
    const flaky = drive(d, { actions: { test: [{ exit_code: 2 }, { exit_code: 0 }] } });
    expect(eventsNamed(flaky, 'action_retry')).toEqual([
      { event: 'action_retry', state: 'test', attempt: 1, attempts: 3, delay_ms: 0, verdict: 'error' },
    ]);
    // Each attempt is evaluated (and recorded as ${result}).
    expect(eventsNamed(flaky, 'evaluate').map((e) => e.verdict)).toEqual(['error', 'yes']);
    const failing = drive(d, { actions: { test: [{ exit_code: 1 }] } });
    expect(failing.actions).toHaveLength(1);
    expect(eventsNamed(failing, 'route')).toEqual([expect.objectContaining({ verdict: 'no' })]);
  });

  it('retries content and LLM verdicts', () => {
    const d = def(
      loop({
        probe: {
          action: 'curl x',
          evaluate: { type: 'output_contains', pattern: 'ready' },
          retry: { attempts: 4, backoff: 0, on: ['no'] },
          on_yes: 'done',
          on_no: 'done',
        },
      }),
    );
    const run = drive(d, { actions: { probe: [{ output: 'starting' }, { output: 'starting' }, { output: 'ready' }] } });
    expect(eventsNamed(run, 'action_retry').map((e) => e.verdict)).toEqual(['no', 'no']);
    const llm = def(
      loop({
        ask: {
          action: '/fix it',
          retry: { attempts: 2, backoff: 0, on: ['blocked'] },
          on_yes: 'done',
          on_blocked: 'done',
          on_no: 'done',
        },
      }),
    );
    const judged = drive(llm, { llm: { ask: ['blocked', 'yes'] } });
    expect(judged.actions).toHaveLength(2);
    expect(judged.result.terminated_by).toBe('terminal');
    expect(eventsNamed(judged, 'route')).toEqual([expect.objectContaining({ verdict: 'yes' })]);
  });

  it('an action that could not run counts as the verdict error', () => {
    const on = (verdicts: string[]) =>
      def(
        loop({
          a: { action: 'x', retry: { attempts: 2, backoff: 0, on: verdicts }, on_yes: 'done', on_error: 'done' },
        }),
      );
    const script = { actions: { a: [{ exit_code: 2, error: 'environment variable X is not set' }, { exit_code: 0 }] } };
    expect(eventsNamed(drive(on(['error']), script), 'action_retry')).toHaveLength(1);
    expect(eventsNamed(drive(on(['no']), script), 'action_retry')).toHaveLength(0);
  });
});

describe('retry: validation', () => {
  const messages = (raw: Record<string, unknown>) =>
    validateLoop(raw).diagnostics.map((x) => `${x.severity}: ${x.message}`);

  it('rejects retry without an action, and on: where nothing is evaluated', () => {
    expect(messages(loop({ a: { retry: { attempts: 2 }, next: 'done' } }))).toContainEqual(
      expect.stringMatching(/^error: retry: on a state without an action/),
    );
    expect(messages(loop({ a: { action: 'x', retry: { attempts: 2, on: ['error'] }, next: 'done' } }))).toContainEqual(
      expect.stringMatching(/^error: retry.on lists verdicts, but states with next:/),
    );
  });

  it('warns about attempts: 1, and checks field types and names', () => {
    expect(messages(loop({ a: { action: 'x', retry: {}, next: 'done' } }))).toContainEqual(
      expect.stringMatching(/^warning: retry with attempts: 1 never retries/),
    );
    expect(messages(loop({ a: { action: 'x', retry: { attempts: 0 }, next: 'done' } }))).toContainEqual(
      expect.stringMatching(/^error:/),
    );
    expect(
      messages(loop({ a: { action: 'x', retry: { attempts: 2, backoff_coefficent: 2 }, next: 'done' } })),
    ).toContainEqual(expect.stringContaining('did you mean "backoff_coefficient"'));
  });

  it('applies the defaults: backoff 1 s, coefficient 2', () => {
    const d = def(loop({ a: { action: 'x', retry: { attempts: 3 }, next: 'done' } }));
    expect(d.states.a?.retry).toEqual({ attempts: 3, backoff: 1, backoff_coefficient: 2 });
  });
});

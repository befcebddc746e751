/** The progress display: a run's lines, and a sub-loop's lines indented under its parent state. */
import { describe, expect, it } from 'vitest';
import { createHumanReporter } from '../../reporters/human.js';
import { createStyle } from '../../reporters/style.js';
import type { TimedEvent } from '../../fsm/run/events.js';

const ts = '2026-11-23T00:00:00.000Z';
const ev = (event: string, fields: Record<string, unknown> = {}, subloop?: TimedEvent['subloop']): TimedEvent =>
  ({ event, ts, ...fields, ...(subloop ? { subloop } : {}) }) as TimedEvent;

describe('human progress display', () => {
  it("indents a sub-loop's steps under the state that runs it, with the child's own pass limit", () => {
    let text = '';
    const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
    const child = { depth: 1, workflow_id: 'p.kid.2' };
    const grandchild = { depth: 2, workflow_id: 'p.kid.2.inner.1' };
    for (const e of [
      ev('loop_start', { loop: 'parent', max_iterations: 10 }),
      ev('state_enter', { state: 'kid', iteration: 1 }),
      ev('subloop_start', { state: 'kid', loop: 'child', passthrough: false }),
      ev('loop_start', { loop: 'child', max_iterations: 3 }, child),
      ev('state_enter', { state: 'check', iteration: 1 }, child),
      ev('action_start', { state: 'check', action: 'npm test' }, child),
      ev('action_complete', { exit_code: 1 }, child),
      ev('evaluate', { type: 'exit_code', verdict: 'no' }, child),
      ev('route', { from: 'check', to: 'inner' }, child),
      ev('state_enter', { state: 'inner', iteration: 1 }, child),
      ev('subloop_start', { state: 'inner', loop: 'fixer', passthrough: true }, child),
      ev('loop_start', { loop: 'fixer', max_iterations: 5 }, grandchild),
      ev('state_enter', { state: 'fix', iteration: 1 }, grandchild),
      ev('action_start', { state: 'fix', action: 'fix it' }, grandchild),
      ev('loop_complete', {}, grandchild),
      ev('subloop_complete', { loop: 'fixer', terminated_by: 'terminal', final_state: 'done' }, child),
      ev('loop_complete', {}, child),
      ev('subloop_complete', { loop: 'child', terminated_by: 'max_iterations', final_state: 'check' }),
      ev('evaluate', { type: 'subloop', verdict: 'no' }),
      ev('route', { from: 'kid', to: 'gave_up' }),
    ]) {
      reporter.onEvent(e);
    }
    expect(text).toBe(
      [
        '[1/10] kid → loop child',
        '       [1/3] check → npm test',
        '              ✗ no (exit 1)',
        '              → inner',
        '       [1/3] inner → loop fixer (passthrough)',
        '              [1/5] fix → fix it',
        '              loop fixer ended terminal in done',
        '       loop child ended max_iterations in check',
        '       ✗ no',
        '       → gave_up',
        '',
      ].join('\n'),
    );
  });

  it('a lane joined mid-run (resume while a child runs) names the state from the event and no unknown limit', () => {
    let text = '';
    const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
    const child = { depth: 1, workflow_id: 'p.one.1' };
    reporter.onEvent(ev('route', { from: 'a', to: 'done' }, child));
    reporter.onEvent(ev('loop_complete', {}, child));
    expect(text).toBe(['       [1] a', '              → done', ''].join('\n'));
  });

  describe('what actions printed (action_output, attached by the follower)', () => {
    const result = {
      terminated_by: 'terminal',
      final_state: 'done',
      iterations: 2,
      duration_ms: 1200,
    } as unknown as Parameters<ReturnType<typeof createHumanReporter>['onResult']>[0];
    const numbered = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).join('\n') + '\n';
    const run = (detail?: 'quiet' | 'normal' | 'verbose') => {
      let text = '';
      const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10, detail);
      for (const e of [
        ev('state_enter', { state: 'build', iteration: 1 }),
        ev('action_start', { state: 'build', action: 'make' }),
        ev('action_complete', { state: 'build', exit_code: 0, action_output: { output: 'built ok\n', stderr: '' } }),
        ev('evaluate', { type: 'exit_code', verdict: 'yes' }),
        ev('route', { from: 'build', to: 'check' }),
        ev('state_enter', { state: 'check', iteration: 1 }),
        ev('action_start', { state: 'check', action: 'npm test' }),
        ev('action_complete', {
          state: 'check',
          exit_code: 1,
          action_output: { output: numbered('line ', 12), stderr: 'boom\x1b]0;pwned\x07\n' },
        }),
        ev('evaluate', { type: 'exit_code', verdict: 'no' }),
        ev('route', { from: 'check', to: 'done' }),
      ]) {
        reporter.onEvent(e);
      }
      reporter.onResult(result, { instanceId: 'x' });
      return text;
    };

    it("by default shows only a failing action's last 5 lines of each stream, before its verdict, escaped", () => {
      expect(run()).toBe(
        [
          '[1/10] build → make',
          '       ✓ yes (exit 0)',
          '       → check',
          '[1/10] check → npm test',
          '       out│ … 7 more lines (ll-loop logs)',
          '       out│ line 8',
          '       out│ line 9',
          '       out│ line 10',
          '       out│ line 11',
          '       out│ line 12',
          '       err│ boom\\x1b]0;pwned\\a',
          '       ✗ no (exit 1)',
          '       → done',
          '',
          'Loop completed: done (2 iterations, 1.2s)',
          '',
        ].join('\n'),
      );
    });

    it('--verbose shows the last 10 lines of every action', () => {
      const text = run('verbose');
      expect(text).toContain('[1/10] build → make\n       out│ built ok\n       ✓ yes (exit 0)\n');
      expect(text).toContain('       out│ … 2 more lines (ll-loop logs)\n       out│ line 3\n');
      expect(text).toContain('       out│ line 12\n       err│ boom\\x1b]0;pwned\\a\n       ✗ no (exit 1)\n');
    });

    it('shows why a failed attempt is retried', () => {
      let text = '';
      const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
      reporter.onEvent(ev('state_enter', { state: 'flaky', iteration: 1 }));
      reporter.onEvent(ev('action_start', { state: 'flaky', action: 'curl x' }));
      reporter.onEvent(
        ev('action_complete', {
          state: 'flaky',
          exit_code: 7,
          action_output: { output: '', stderr: 'connection refused\n' },
        }),
      );
      reporter.onEvent(ev('action_retry', { state: 'flaky', attempt: 1, attempts: 3, exit_code: 7, delay_ms: 0 }));
      expect(text).toBe(
        '[1/10] flaky → curl x\n       err│ connection refused\n       ↻ attempt 1/3 failed (exit 7); retrying\n',
      );
    });

    it('--quiet prints only the end line', () => {
      expect(run('quiet')).toBe('Loop completed: done (2 iterations, 1.2s)\n');
    });

    /** A run whose failure terminal's action says why (the catalog's messages), at each detail. */
    const gaveUp = (detail?: 'quiet' | 'normal') => {
      let text = '';
      const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10, detail);
      for (const e of [
        ev('state_enter', { state: 'gave_up', iteration: 2 }),
        ev('action_start', { state: 'gave_up', action: "echo 'the tests still fail'" }),
        ev('action_complete', {
          state: 'gave_up',
          exit_code: 0,
          action_output: { output: 'the tests still fail after 1 fix attempt\n', stderr: '' },
        }),
        ev('loop_complete', { terminated_by: 'terminal', failure: true, final_state: 'gave_up' }),
      ])
        reporter.onEvent(e);
      reporter.onResult({ ...result, final_state: 'gave_up', failure: true } as typeof result, { instanceId: 'x' });
      return text;
    };

    it("a failure terminal without an action shows nothing more (a check's output is not repeated)", () => {
      for (const detail of ['quiet', 'normal'] as const) {
        let text = '';
        const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10, detail);
        for (const e of [
          ev('state_enter', { state: 'check', iteration: 1 }),
          ev('action_start', { state: 'check', action: 'npm test' }),
          ev('action_complete', { state: 'check', exit_code: 1, action_output: { output: 'boom\n', stderr: '' } }),
          ev('evaluate', { type: 'exit_code', verdict: 'no' }),
          ev('route', { from: 'check', to: 'failed' }),
          ev('state_enter', { state: 'failed', iteration: 1 }),
          ev('loop_complete', { terminated_by: 'terminal', failure: true, final_state: 'failed' }),
        ])
          reporter.onEvent(e);
        reporter.onResult({ ...result, final_state: 'failed', failure: true } as typeof result, { instanceId: 'x' });
        expect(text.split('out│ boom').length - 1).toBe(detail === 'quiet' ? 0 : 1);
      }
    });

    it("a failure terminal's output says why the run failed: shown, also with --quiet", () => {
      expect(gaveUp()).toBe(
        [
          "[2/10] gave_up → echo 'the tests still fail'",
          '       out│ the tests still fail after 1 fix attempt',
          '',
          'Loop ended in failure state: gave_up (2 iterations, 1.2s)',
          '',
        ].join('\n'),
      );
      expect(gaveUp('quiet')).toBe(
        'Loop ended in failure state: gave_up (2 iterations, 1.2s)\n       out│ the tests still fail after 1 fix attempt\n',
      );
    });
  });

  it('says when an answer or an output missed its schema and is asked for again', () => {
    let text = '';
    const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
    for (const e of [
      ev('state_enter', { state: 'check', iteration: 1 }),
      ev('action_start', { state: 'check', action: 'make' }),
      ev('action_complete', { exit_code: 0 }),
      ev('llm_reask', {
        state: 'check',
        ask: 2,
        asks: 3,
        errors: ['/verdict must be equal to one of the allowed values: "done"'],
      }),
      ev('output_reask', { state: 'check', ask: 3, asks: 3, errors: ['the output is not JSON'] }),
    ]) {
      reporter.onEvent(e);
    }
    expect(text).toContain(
      '↻ answer missed its schema (/verdict must be equal to one of the allowed values: "done"); asking again (2/3)\n',
    );
    expect(text).toContain('↻ output missed its schema (the output is not JSON); asking again (3/3)\n');
  });

  it('says when a rate limit pauses the run, when it goes on, and shows no output of the limited call', () => {
    let text = '';
    const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
    const resumes = '2026-11-23T01:01:00.000Z';
    for (const e of [
      ev('state_enter', { state: 'fix', iteration: 1 }),
      ev('action_start', { state: 'fix', action: 'Fix it' }),
      ev('action_complete', {
        exit_code: 1,
        rate_limited: true,
        action_output: { output: 'API Error: 429', stderr: '', exit_code: 1 },
      }),
      ev('rate_limited', {
        state: 'fix',
        source: 'action',
        kind: 'quota',
        message: 'Claude AI usage limit reached|1795600800\u001b[2J',
        resumes_at: resumes,
        wait_ms: 3_660_000,
        pause: 1,
      }),
    ]) {
      reporter.onEvent(e);
    }
    const local = new Date(resumes);
    const p = (n: number) => String(n).padStart(2, '0');
    expect(text).toContain(
      `⏸ quota: Claude AI usage limit reached|1795600800\\x1b[2J; running it again at ${local.getFullYear()}-${p(local.getMonth() + 1)}-${p(local.getDate())} ${p(local.getHours())}:${p(local.getMinutes())}:00 (in 1h 1m)\n`,
    );
    expect(text).not.toContain('out│');
  });
});

describe('a question in the progress display', () => {
  it("names the run in the command that answers it (a sub-loop's question: inbox tells its run)", () => {
    let text = '';
    const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
    reporter.onStart?.({ instanceId: 'ask-20261125T101010' } as Parameters<NonNullable<typeof reporter.onStart>>[0]);
    reporter.onEvent(ev('loop_start', { loop: 'ask', max_iterations: 10 }));
    reporter.onEvent(ev('state_enter', { state: 'review', iteration: 1 }));
    reporter.onEvent(ev('human_wait', { state: 'review', prompt: 'Ship it?', ask: 'approval' }));
    const child = { depth: 1, workflow_id: 'ask-20261125T101010.kid.1' };
    reporter.onEvent(ev('loop_start', { loop: 'kid', max_iterations: 3 }, child));
    reporter.onEvent(ev('state_enter', { state: 'pick', iteration: 1 }, child));
    reporter.onEvent(ev('human_wait', { state: 'pick', prompt: 'Which?', ask: 'choice', options: ['a', 'b'] }, child));
    expect(text).toContain('answer with ll-loop answer ask-20261125T101010 …; ll-loop inbox lists what waits');
    expect(text).toContain('answer with ll-loop answer <run> …; ll-loop inbox lists what waits');
  });

  it("lists a 10,000-item fan-out's failures and its first 10 successes, and counts the rest at the join", () => {
    const run = (detail: 'normal' | 'verbose') => {
      let text = '';
      const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10, detail);
      reporter.onEvent(ev('loop_start', { loop: 'fan', max_iterations: 10 }));
      reporter.onEvent(ev('state_enter', { state: 'fix_all', iteration: 1 }));
      reporter.onEvent(ev('fanout_start', { state: 'fix_all', count: 10_000, loop: 'one', max_workers: 50 }));
      for (let index = 0; index < 10_000; index++)
        reporter.onEvent(
          ev('item_done', { state: 'fix_all', index, outcome: index === 5_000 ? 'no' : 'yes', run_id: `r.${index}` }),
        );
      reporter.onEvent(
        ev('fanout_join', { state: 'fix_all', count: 10_000, succeeded: 9_999, failed: 1, verdict: 'partial' }),
      );
      return text.split('\n');
    };
    const lines = run('normal');
    const items = lines.filter((l) => l.includes('item '));
    expect(items.map((l) => l.trim())).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `item ${i}: yes`),
      'item 5000: no',
    ]);
    expect(lines.find((l) => l.includes('joined:'))?.trim()).toBe(
      'joined: 9999/10000 succeeded, 1 failed (9989 succeeded items not listed: --verbose lists every item)',
    );
    expect(run('verbose').filter((l) => l.includes('item '))).toHaveLength(10_000);
  });
});

/** The progress display: a run's lines, and a sub-loop's lines indented under its parent state. */
import { describe, expect, it } from 'vitest';
import { createHumanReporter } from '../../client/reporters/human.js';
import { createStyle } from '../../client/reporters/style.js';
import type { TimedEvent } from '../../worker/event-hub.js';

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
});

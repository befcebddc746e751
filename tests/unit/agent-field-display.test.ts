/** The progress display (`run`, `logs`, `history`) of the agent fields' events: the files and the finding, named. */
import { expect, it } from 'vitest';
import { createHumanReporter } from '../../reporters/human.js';
import { createStyle } from '../../reporters/style.js';
import type { TimedEvent } from '../../fsm/run/events.js';

const ts = '2026-12-02T00:00:00.000Z';
const ev = (event: string, fields: Record<string, unknown>): TimedEvent => ({ event, ts, ...fields }) as TimedEvent;

it('shows a tamper_guard finding with its files and a prepatch_check outcome with its message', () => {
  let text = '';
  const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
  for (const e of [
    ev('state_enter', { state: 'fix', iteration: 1 }),
    ev('action_start', { state: 'fix', action: 'Fix it' }),
    ev('action_complete', { state: 'fix', exit_code: 0 }),
    ev('tamper_guard', {
      state: 'fix',
      policy: 'revert',
      findings: ['deleted: tests/test_calc.py', 'modified: pytest.ini'],
      reverted: ['tests/test_calc.py', 'pytest.ini'],
    }),
    ev('prepatch_check', {
      state: 'fix',
      policy: 'fail',
      outcome: 'flagged',
      message: 'no patch was applied: the checkout has no changes against its commit',
    }),
  ])
    reporter.onEvent(e);
  expect(text).toContain('⚠ tamper_guard (revert): deleted: tests/test_calc.py, modified: pytest.ini; reverted 2\n');
  expect(text).toContain(
    '⚠ prepatch_check (fail): no patch was applied: the checkout has no changes against its commit\n',
  );
});

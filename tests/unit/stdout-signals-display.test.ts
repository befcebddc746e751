/** How stdout signals look to a person (progress lines, end line) and to a shell (exit codes). */
import { describe, expect, it } from 'vitest';
import { createHumanReporter } from '../../reporters/human.js';
import { createStyle } from '../../reporters/style.js';
import { EXIT, exitCodeFor } from '../../errors/exit-codes.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import type { ExecutionResult } from '../../fsm/types.js';

const ts = '2026-11-25T00:00:00.000Z';
const ev = (event: string, fields: Record<string, unknown> = {}): TimedEvent =>
  ({ event, ts, ...fields }) as TimedEvent;
const ended = (fields: Partial<ExecutionResult>): ExecutionResult => ({
  loop: 'l',
  final_state: 'work',
  iterations: 2,
  steps: 3,
  terminated_by: 'terminal',
  failure: false,
  duration_ms: 1500,
  captured: {},
  ...fields,
});

function shown(events: TimedEvent[], result?: ExecutionResult): string {
  let text = '';
  const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
  for (const e of events) reporter.onEvent(e);
  if (result) reporter.onResult(result, { instanceId: 'l-1' });
  return text;
}

describe('stdout signals in the progress display', () => {
  it('a handoff paused, then continued', () => {
    const text = shown([
      ev('state_enter', { state: 'work', iteration: 1 }),
      ev('action_start', { state: 'work', action: 'Do the work' }),
      ev('action_complete', { state: 'work', exit_code: 0 }),
      ev('handoff', { state: 'work', mode: 'pause', payload: 'continue with the lexer', continuation: 1 }),
      ev('handoff_resumed', { state: 'work', waited_ms: 65_000 }),
    ]);
    expect(text).toContain('       ⇄ handed off: continue with the lexer; paused; continue it with ll-loop resume\n');
    expect(text).toContain('       ▶ continued after 1m 5s\n');
  });

  it('a spawned continuation, a stop and a fatal error', () => {
    const text = shown([
      ev('state_enter', { state: 'work', iteration: 1 }),
      ev('handoff', { state: 'work', mode: 'spawn', payload: 'p', continuation: 2 }),
      ev('loop_stop', { state: 'work', message: 'enough' }),
      ev('fatal_error', { state: 'work', message: 'disk full' }),
    ]);
    expect(text).toContain('⇄ handed off: p; continuing in a fresh session (2)');
    expect(text).toContain('■ LOOP_STOP: enough; the run stops after routing');
    expect(text).toContain('✗ FATAL_ERROR: disk full');
  });

  it('the end lines of a handed-off and of a LOOP_STOP run', () => {
    expect(
      shown([], ended({ terminated_by: 'handoff', error: 'state "work" handed off (CONTEXT_HANDOFF: p)' })),
    ).toContain(
      'Loop handed off in state work (2 iterations, 1.5s); ll-loop resume continues it\n       state "work" handed off (CONTEXT_HANDOFF: p)',
    );
    expect(
      shown(
        [],
        ended({ terminated_by: 'cancelled', stopped_by: 'loop_stop', final_state: 'next', error: 'LOOP_STOP: enough' }),
      ),
    ).toContain('Loop stopped in state next by LOOP_STOP: enough (2 iterations');
  });
});

describe('exit codes', () => {
  it('a handed-off run (on_handoff: terminate) and a LOOP_STOP exit 6, like a stopped run; FATAL_ERROR exits 5', () => {
    expect(exitCodeFor({ terminated_by: 'handoff', failure: false })).toBe(EXIT.cancelled);
    expect(exitCodeFor({ terminated_by: 'cancelled', failure: false })).toBe(EXIT.cancelled);
    expect(exitCodeFor({ terminated_by: 'error', failure: false })).toBe(EXIT.runError);
  });
});

/**
 * little-loops' `action_stall` evaluator: `no` once the tracked values repeat `max_repeat`
 * evaluations in a row; its memory is the run's (never another run's). Loops written here.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

const stalling = (evaluate: Record<string, unknown>) =>
  def(
    loop(
      { a: { action: 'make step', capture: 'out', evaluate, on_yes: 'a', on_no: 'done' } },
      { max_steps: 20, context: { action: 'fixed' } },
    ),
  );
const outputs = (...texts: string[]) => texts.map((output) => ({ output }));

describe('action_stall', () => {
  it('stalls once the tracked output repeats max_repeat times in a row', () => {
    const d = stalling({ type: 'action_stall', track: ['captured.out.output'], max_repeat: 2 });
    const run = drive(d, { actions: { a: outputs('one', 'two', 'two', 'two') } });
    expect(run.entered).toEqual(['a', 'a', 'a', 'a', 'done']);
    expect(
      eventsNamed(run, 'evaluate').map((e) => [e.verdict, (e.details as { stall_count: number }).stall_count]),
    ).toEqual([
      ['yes', 0],
      ['yes', 0],
      ['yes', 1],
      ['no', 2],
    ]);
  });

  it('a change resets the count', () => {
    const d = stalling({ type: 'action_stall', track: ['captured.out.output'], max_repeat: 2 });
    const run = drive(d, { actions: { a: outputs('x', 'x', 'y', 'y', 'y') } });
    expect(run.entered).toEqual(['a', 'a', 'a', 'a', 'a', 'done']);
  });

  it('tracks `action` by default: a bare key is looked up in context, captured, prev, result', () => {
    // context.action never changes, so the second evaluation already repeats it (max_repeat 1).
    const d = stalling({ type: 'action_stall', max_repeat: 1 });
    const run = drive(d, { actions: { a: outputs('one', 'two') } });
    expect(run.entered).toEqual(['a', 'a', 'done']);
    expect(eventsNamed(run, 'evaluate')[0]?.details).toMatchObject({ tracked_keys: ['action'], max_repeat: 1 });
  });

  it('loads with its fields checked; an unknown field is an error with a did-you-mean', () => {
    const raw = (evaluate: Record<string, unknown>) =>
      loop({ a: { action: 'make', evaluate, on_yes: 'a', on_no: 'done' } });
    expect(validateLoop(raw({ type: 'action_stall', track: ['action'], max_repeat: 3 })).definition).toBeDefined();
    const bad = validateLoop(raw({ type: 'action_stall', max_repeats: 3 }));
    expect(bad.definition).toBeUndefined();
    expect(bad.diagnostics.map((d) => d.message).join('\n')).toMatch(/"max_repeats" \(did you mean "max_repeat"/);
  });
});

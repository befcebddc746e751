/**
 * A reference with a modifier that does not exist (`${loop.started_at:0:19}`, bash's substring
 * written inside an interpolation) loads with a warning, as little-loops reads references only when
 * a state runs; the state then fails with the reason. Other template errors stay errors.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

const raw = loop({
  stamp: { action: 'echo "${loop.started_at:0:19}"', on_yes: 'done', on_error: 'broken' },
  broken: { terminal: true, failure: true },
});

describe('an unknown modifier', () => {
  it('is a warning at its action, naming the modifier and the ones there are', () => {
    const result = validateLoop(raw);
    expect(result.definition).toBeDefined();
    expect(result.diagnostics.filter((d) => d.path.join('.') === 'states.stamp.action')).toEqual([
      expect.objectContaining({
        severity: 'warning',
        path: ['states', 'stamp', 'action'],
        message: expect.stringMatching(
          /unknown modifier ":0:19" in \$\{loop\.started_at:0:19\}: use :-default.*; the state fails when it runs/,
        ),
      }),
    ]);
  });

  it('fails the state when it runs: its error route, no action issued', () => {
    const run = drive(def(raw));
    expect(run.actions).toEqual([]);
    expect(run.entered).toEqual(['stamp', 'broken']);
    expect(eventsNamed(run, 'action_error')[0]?.error).toMatch(/unknown modifier ":0:19"/);
  });

  it.each([
    ['an unclosed reference', 'echo ${context.x'],
    ['an unknown namespace', 'echo ${contxt.x}'],
  ])('%s is still an error', (_label, action) => {
    const result = validateLoop(loop({ a: { action, next: 'done' } }));
    expect(result.definition).toBeUndefined();
  });
});

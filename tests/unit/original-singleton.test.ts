/** little-loops' `singleton: true` loads, noted as not enforced; its value type is checked. Loops written here. */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';

const raw = (singleton: unknown) => ({
  name: 'x',
  description: 'd',
  initial: 'a',
  singleton,
  states: { a: { action: 'make', next: 'done' }, done: { terminal: true } },
});

describe('singleton', () => {
  it('true loads with a note that says it is not enforced', () => {
    const result = validateLoop(raw(true));
    expect(result.definition).toBeDefined();
    expect(result.diagnostics.map((d) => `${d.severity}: ${d.message}`)).toEqual([
      expect.stringMatching(/^note: singleton: accepted: not enforced yet: two runs of this loop may overlap/),
    ]);
  });

  it('a value that is not a boolean is an error naming the field', () => {
    const result = validateLoop(raw('yes'));
    expect(result.definition).toBeUndefined();
    expect(result.diagnostics.map((d) => d.path.join('.'))).toContain('singleton');
  });
});

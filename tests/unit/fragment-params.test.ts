/**
 * Fragment parameters (little-loops' form, fsm/definition/fragment-params.ts): a state's `with:`
 * binds the `${param.NAME}` of the fragment it uses, defaults fill the rest, and what is left is a
 * plain state. Pure: documents in, document and findings out.
 */
import { describe, expect, it } from 'vitest';
import { addFragments, composeLoop, type FragmentTable } from '../../fsm/definition/fragments.js';
import type { PlainObject } from '../../fsm/definition/merge.js';
import { validateLoop } from '../../fsm/definition/validate.js';

const FRAGMENTS = {
  bump: {
    description: 'counts in a file',
    parameters: { file: { type: 'string', required: true }, limit: { type: 'integer', default: 3 } },
    action: 'n=$(cat "${param.file}" || echo 0); echo $((n + 1)) | tee "${param.file}"',
    action_type: 'shell',
    evaluate: { type: 'output_numeric', operator: 'lt', target: '${param.limit}' },
  },
};

function compose(state: PlainObject) {
  const table: FragmentTable<number> = new Map();
  addFragments(table, FRAGMENTS, 0);
  const doc = {
    name: 'x',
    description: 'd',
    initial: 'a',
    states: { a: { fragment: 'bump', on_yes: 'a', on_no: 'done', ...state }, done: { terminal: true } },
  };
  return composeLoop([doc], table);
}

describe('fragment parameters', () => {
  it('with: binds them, defaults fill the rest, and the state is plain', () => {
    const composed = compose({ with: { file: 'count.txt' } });
    expect(composed.findings).toEqual([]);
    const a = (composed.raw.states as PlainObject).a as PlainObject;
    expect(a.action).toBe('n=$(cat "count.txt" || echo 0); echo $((n + 1)) | tee "count.txt"');
    expect(a.evaluate).toEqual({ type: 'output_numeric', operator: 'lt', target: '3' });
    expect(a).not.toHaveProperty('parameters');
    expect(a).not.toHaveProperty('with');
    expect(validateLoop(composed.raw).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('a bound value wins over the default', () => {
    const a = (compose({ with: { file: 'f', limit: 5 } }).raw.states as PlainObject).a as PlainObject;
    expect(a.evaluate).toMatchObject({ target: '5' });
  });

  it('a required parameter not bound, and a binding of no parameter, are errors', () => {
    const missing = compose({});
    expect(missing.findings.map((f) => f.diagnostic.message)).toEqual(['fragment "bump" needs parameter "file"']);
    const wrong = compose({ with: { file: 'f', fiel: 'g' } });
    expect(wrong.findings.map((f) => f.diagnostic.message)).toEqual([
      'fragment "bump" has no parameter "fiel" (did you mean "file"?)',
    ]);
  });
});

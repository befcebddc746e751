/**
 * An empty value under `context:` beside a parameter is a placeholder, not the parameter's value
 * (little-loops writes `run_dir: ""` beside a required `path` parameter). Loops written here.
 */
import { describe, expect, it } from 'vitest';
import { bindParameters } from '../../fsm/definition/parameters.js';
import { def, loop } from './helpers.js';

const child = (context: Record<string, unknown>) =>
  def({
    ...loop({ run: { action: 'ls ${context.run_dir}', next: 'done' } }),
    name: 'node',
    parameters: { run_dir: { type: 'path', required: true }, label: { type: 'string', default: 'x' } },
    context,
  });

describe('an empty context value beside a parameter', () => {
  it('loads (validate binds nothing and asks nothing)', () => {
    const out = bindParameters(
      child({ run_dir: '' }),
      {},
      { source: 'command line', strict: false, requireAll: false },
    );
    expect(out).toEqual({ values: { label: 'x' }, problems: [] });
  });

  it('a run that does not give it is told the parameter is needed, not that "" is not a path', () => {
    const out = bindParameters(child({ run_dir: '' }), {}, { source: 'command line', strict: false, requireAll: true });
    expect(out.problems.map((p) => p.message)).toEqual(['loop "node" needs parameter "run_dir"']);
  });

  it('a given value binds; an empty context value beside a default gives the default', () => {
    const given = bindParameters(
      child({ run_dir: '' }),
      { run_dir: 'runs/1' },
      { source: 'with', strict: true, requireAll: true },
    );
    expect(given.values.run_dir).toBe('runs/1');
    const label = bindParameters(
      child({ run_dir: 'r', label: '' }),
      {},
      { source: 'with', strict: true, requireAll: true },
    );
    expect(label.values).toEqual({ run_dir: 'r', label: 'x' });
  });
});

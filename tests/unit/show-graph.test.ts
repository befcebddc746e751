/**
 * `ll-loop show` internals: the graph's main path and order, Mermaid escaping, and text wrapping.
 * Pure: definitions are built in memory.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../client/show/graph.js';
import { mermaidIds, mermaidText, renderMermaid } from '../../client/show/mermaid.js';
import { wrapText } from '../../client/show/wrap.js';
import { checkMermaid } from '../support/mermaid-check.js';
import { def } from './helpers.js';

describe('the graph: main path and order', () => {
  const states = (s: Record<string, unknown>) => def({ name: 'g', initial: Object.keys(s)[0], states: s });

  it('follows the passing verdicts from the initial state to a successful end', () => {
    const g = buildGraph(
      states({
        a: { action: 'x', on_no: 'fix', on_yes: 'b' },
        fix: { action: 'y', next: 'a' },
        b: { action: 'x', on_error: 'fail', on_success: 'done' },
        done: { terminal: true },
        fail: { terminal: true, failure: true },
      }),
    );
    expect(g.mainPath).toEqual(['a', 'b', 'done']);
    expect(g.mainPathComplete).toBe(true);
    expect(g.order).toEqual(['a', 'b', 'done', 'fix', 'fail']);
  });

  it('prefers next and yes over other labels, and error routes last', () => {
    const g = buildGraph(
      states({
        a: { action: 'x', route: { _error: 'quick', maybe: 'quick', yes: 'b' } },
        b: { action: 'x', next: 'done', on_error: 'quick' },
        quick: { terminal: true },
        done: { terminal: true },
      }),
    );
    expect(g.mainPath).toEqual(['a', 'b', 'done']);
  });

  it('takes a detour when the preferred exit leads only back or to failure', () => {
    const g = buildGraph(
      states({
        a: { action: 'x', on_yes: 'a2', on_no: 'c' },
        a2: { action: 'x', on_yes: 'a', on_no: 'gave_up' },
        c: { action: 'x', on_yes: 'done', on_no: 'gave_up' },
        done: { terminal: true },
        gave_up: { terminal: true, failure: true },
      }),
    );
    expect(g.mainPath).toEqual(['a', 'c', 'done']);
    expect(g.mainPathComplete).toBe(true);
  });

  it('ends at a failure terminal, marked incomplete, when no successful end is reachable', () => {
    const g = buildGraph(
      states({ a: { action: 'x', on_yes: 'a', on_no: 'stop' }, stop: { terminal: true, failure: true } }),
    );
    expect(g.mainPath).toEqual(['a', 'stop']);
    expect(g.mainPathComplete).toBe(false);
  });

  it('marks back edges and $current, never the main path’s own edges', () => {
    const g = buildGraph(
      states({
        a: { action: 'x', on_yes: 'b', on_no: 'fix' },
        fix: { action: 'y', next: 'a' },
        b: { action: 'x', route: { yes: 'done', again: '$current', _: 'a' } },
        done: { terminal: true },
      }),
    );
    const back = (from: string) => g.nodes[from]!.exits.filter((e) => e.back).map((e) => e.labels.join(','));
    expect(back('a')).toEqual([]);
    expect(back('fix')).toEqual(['next']);
    expect(back('b')).toEqual(['again', 'otherwise']);
  });

  it('groups labels that lead to the same state, and lists unreachable states last', () => {
    const g = buildGraph(
      states({
        a: { action: 'x', on_yes: 'done', on_no: 'done' },
        orphan: { action: 'y', next: 'done' },
        done: { terminal: true },
      }),
    );
    expect(g.nodes.a!.exits.map((e) => e.labels)).toEqual([['yes', 'no']]);
    expect(g.order).toEqual(['a', 'done', 'orphan']);
    expect(g.nodes.orphan!.unreachable).toBe(true);
  });

  it('shows a maintain loop’s restart as an exit of its terminal state', () => {
    const g = buildGraph(
      def({
        name: 'm',
        maintain: true,
        initial: 'a',
        states: { a: { action: 'x', next: 'done' }, done: { terminal: true } },
      }),
    );
    expect(g.nodes.done!.exits).toEqual([
      { labels: ['maintain'], target: { kind: 'state', name: 'a', viaCurrent: false }, back: true },
    ]);
  });
});

describe('Mermaid escaping', () => {
  it('aliases names that are not plain identifiers or are keywords, uniquely', () => {
    const ids = mermaidIds(['fix-tests', 'end', 'State', 'ok', 'a b', 's_a_b', 'ünï', '9lives']);
    expect(Object.fromEntries(ids)).toEqual({
      'fix-tests': 's_fix_tests',
      end: 's_end',
      State: 's_State',
      ok: 'ok',
      'a b': 's_a_b_2',
      s_a_b: 's_a_b',
      ünï: 's_n',
      '9lives': 's_9lives',
    });
  });

  it('writes other characters as entity codes', () => {
    expect(mermaidText('a:b;c"d#e{f}')).toBe('a#58;b#59;c#34;d#35;e#123;f#125;');
  });

  it('prints a valid diagram for awkward names', () => {
    const loop = def({
      name: 'awkward: "names"',
      initial: 'start-here',
      states: {
        'start-here': { action: 'x', route: { 'a:b': 'end', 'x;y': 'state', _: '${context.next}' } },
        end: { terminal: true },
        state: { terminal: true, failure: true },
      },
      context: { next: 'end' },
    });
    const text = renderMermaid(loop).join('\n');
    expect(checkMermaid(text)).toEqual([]);
    expect(text).toContain('state "start-here" as s_start_here');
    expect(text).toContain('[*] --> s_start_here');
    expect(text).toContain('s_start_here --> s_end : a#58;b');
    expect(text).toContain('s_state --> [*]');
    expect(text).toContain('class s_state failure');
  });
});

describe('wrapText', () => {
  it('wraps between words, splits words longer than a line, and cuts with …', () => {
    expect(wrapText('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrapText('abcdefghijklmnopqrst', 8)).toEqual(['abcdefgh', 'ijklmnop', 'qrst']);
    // Long words break at the seams of references and paths where one is near the end of a line.
    expect(wrapText('${context.test_cmd}', 12)).toEqual(['${context.', 'test_cmd}']);
    expect(wrapText('a ${state.iteration} ≤ ${context.max}', 15)).toEqual([
      'a ${state.',
      'iteration} ≤',
      '${context.max}',
    ]);
    expect(wrapText('one two three four', 9, 2)).toEqual(['one two', 'three…']);
    expect(wrapText('   ', 5)).toEqual([]);
  });
});

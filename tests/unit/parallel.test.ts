/**
 * Parallel states in the pure core and in validation: items resolved (list, JSON, lines,
 * branches), `${item}` in each item's `with:`, the join captured and routed (yes, partial with
 * its fallback to on_no, no, an empty list), bad items as a recorded error verdict, and every
 * bad field refused at load with its line and a fix.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import type { ParallelItemResult, ParallelRequest } from '../../fsm/types.js';
import type { Transition } from '../../fsm/run/snapshot.js';
import { simulate } from '../../fsm/tools/simulate.js';
import { loadLoopFile } from '../../loader/load.js';
import { fanoutLines } from '../../reporters/fanout-line.js';
import { buildGraph } from '../../client/show/graph.js';
import { renderDiagram } from '../../client/show/diagram.js';
import { createStyle } from '../../reporters/style.js';
import { renderMermaid } from '../../client/show/mermaid.js';
import { checkMermaid } from '../support/mermaid-check.js';
import { begin, def, next, withoutStamp } from './helpers.js';

function fanLoop(
  parallel: Record<string, unknown>,
  routes: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  return def({
    name: 'fan',
    description: 'fan-out',
    initial: 'list',
    context: { prefix: 'p' },
    states: {
      list: { action: 'echo \'["a","b","c"]\'', capture: 'failing', next: 'fix_all' },
      fix_all: { parallel, on_yes: 'done', on_no: 'gave_up', ...routes },
      done: { terminal: true },
      gave_up: { terminal: true, failure: true },
      ...((extra.states as Record<string, unknown>) ?? {}),
    },
  });
}

/** Run to the parallel state's effect, the list action printing `output`. */
function toFanout(d: LoopDefinition, output: string): Transition {
  const t = begin(d);
  return next(d, t, { type: 'action_done', result: { output, stderr: '', exit_code: 0, duration_ms: 1 }, now: 1 });
}

function requestOf(t: Transition): ParallelRequest {
  if (t.effect.type !== 'run_parallel') throw new Error(`expected run_parallel, got ${JSON.stringify(t.effect)}`);
  return t.effect.input;
}

function results(outcomes: ParallelItemResult['outcome'][]): ParallelItemResult[] {
  return outcomes.map((outcome, index) => ({
    index,
    item: String(index),
    loop: 'fix-one',
    outcome,
    run_id: `r.${index}`,
  }));
}

describe('parallel states: items', () => {
  it("reads a JSON array from a template, and binds ${item} and ${item_index} in each item's with:", () => {
    const d = fanLoop({
      items: '${captured.failing.output}',
      loop: 'fix-one',
      with: { test: '${item}', n: '${item_index}', tag: '${context.prefix}-${item}' },
      max_workers: 2,
    });
    const t = toFanout(d, '["a","b","c"]');
    const request = requestOf(t);
    expect(request).toMatchObject({ state: 'fix_all', max_workers: 2, fail_mode: 'collect', isolation: 'none' });
    expect(request.items.map((i) => [i.index, i.item, i.loop, i.bindings?.values])).toEqual([
      [0, 'a', 'fix-one', { test: 'a', n: '0', tag: 'p-a' }],
      [1, 'b', 'fix-one', { test: 'b', n: '1', tag: 'p-b' }],
      [2, 'c', 'fix-one', { test: 'c', n: '2', tag: 'p-c' }],
    ]);
    // Items printed by the run are data for the child, never code.
    expect(request.items[0]!.bindings?.dataContext.sort()).toEqual(['tag', 'test']);
    expect(t.snapshot.phase).toBe('parallel');
    expect(t.events.map(withoutStamp).find((e) => e.event === 'fanout_start')).toEqual({
      event: 'fanout_start',
      state: 'fix_all',
      count: 3,
      max_workers: 2,
      fail_mode: 'collect',
      loop: 'fix-one',
    });
  });

  it('keeps an object item whole when with: is exactly ${item}', () => {
    const d = fanLoop({ items: [{ file: 'x.ts' }], loop: 'fix-one', with: { it: '${item}', f: '${item.file}' } });
    const request = requestOf(toFanout(d, ''));
    expect(request.items[0]!.bindings?.values).toEqual({ it: { file: 'x.ts' }, f: 'x.ts' });
  });

  it('reads one item per non-empty line with items_from: lines', () => {
    const d = fanLoop({ items: '${captured.failing.output}', items_from: 'lines', loop: 'fix-one' });
    const request = requestOf(toFanout(d, 'a\n\n  b  \nc\n'));
    expect(request.items.map((i) => i.item)).toEqual(['a', 'b', 'c']);
  });

  it('runs static branches, each its own loop with its own with:', () => {
    const d = fanLoop({ branches: ['lint', { loop: 'test', with: { fast: true, name: '${item}' } }] });
    const request = requestOf(toFanout(d, ''));
    expect(request.items).toEqual([
      { index: 0, item: 'lint', loop: 'lint' },
      { index: 1, item: 'test', loop: 'test', bindings: { values: { fast: true, name: 'test' }, dataContext: [] } },
    ]);
    expect(toFanout(d, '').events.find((e) => e.event === 'fanout_start')).not.toHaveProperty('loop');
  });

  it('records items that are not a list as an error verdict with the reason', () => {
    const d = fanLoop({ items: '${captured.failing.output}', loop: 'fix-one' }, { on_error: 'gave_up' });
    for (const [output, why] of [
      ['not json', 'which is not a JSON array'],
      ['{"a":1}', 'which is not a list'],
    ]) {
      const t = toFanout(d, output!);
      const error = t.events.find((e) => e.event === 'action_error');
      expect(error).toMatchObject({ state: 'fix_all' });
      expect(String((error as { error: string }).error)).toContain(why);
      expect(t.events.find((e) => e.event === 'route' && e.from === 'fix_all')).toMatchObject({
        from: 'fix_all',
        to: 'gave_up',
        verdict: 'error',
      });
    }
  });

  it('records an unresolved items template as an error verdict', () => {
    const d = fanLoop({ items: '${captured.failing.json}', loop: 'fix-one' }, { on_error: 'gave_up' });
    const t = toFanout(d, '[1]');
    expect(t.events.find((e) => e.event === 'action_error')).toMatchObject({
      error: expect.stringContaining('undefined variable ${captured.failing.json}'),
    });
  });
});

describe('parallel states: the join', () => {
  const d = fanLoop(
    { items: ['a', 'b', 'c'], loop: 'fix-one' },
    { on_partial: 'report' },
    {
      states: { report: { terminal: true } },
    },
  );

  it('routes on_yes when every item succeeded, and captures the join under the state name', () => {
    const t = next(d, toFanout(d, ''), {
      type: 'parallel_done',
      results: results(['yes', 'yes', 'yes']).reverse(),
      now: 5,
    });
    expect(t.effect.type).toBe('finish');
    expect(t.snapshot.current).toBe('done');
    const joined = t.snapshot.captured.fix_all!;
    expect(joined).toMatchObject({ succeeded: 3, failed: 0, count: 3 });
    // In item order, whatever order they ended in.
    expect(joined.results!.map((r) => r.index)).toEqual([0, 1, 2]);
    expect(JSON.parse(joined.output)).toHaveLength(3);
    expect(t.events.map(withoutStamp).find((e) => e.event === 'fanout_join')).toEqual({
      event: 'fanout_join',
      state: 'fix_all',
      count: 3,
      succeeded: 3,
      failed: 0,
      verdict: 'yes',
    });
  });

  it('routes on_partial when some succeeded, on_no when none did', () => {
    const partial = next(d, toFanout(d, ''), {
      type: 'parallel_done',
      results: results(['yes', 'no', 'error']),
      now: 5,
    });
    expect(partial.snapshot.current).toBe('report');
    expect(partial.snapshot.captured.fix_all).toMatchObject({ succeeded: 1, failed: 2, count: 3 });
    const none = next(d, toFanout(d, ''), { type: 'parallel_done', results: results(['no', 'no', 'error']), now: 5 });
    expect(none.snapshot.current).toBe('gave_up');
  });

  it('follows on_no for a partial join when there is no on_partial', () => {
    const plain = fanLoop({ items: ['a', 'b'], loop: 'fix-one' });
    const t = next(plain, toFanout(plain, ''), { type: 'parallel_done', results: results(['yes', 'no']), now: 5 });
    expect(t.snapshot.current).toBe('gave_up');
    expect(t.events.find((e) => e.event === 'route' && e.from === 'fix_all')).toMatchObject({
      verdict: 'partial',
      to: 'gave_up',
    });
  });

  it('keeps at most 1,000 results of a 10,000-item join, those that did not succeed first, within 2 MB', () => {
    const outcomes = Array.from({ length: 10_000 }, (_, i) => (i % 100 === 99 ? 'no' : 'yes') as 'yes' | 'no');
    const t = next(d, toFanout(d, ''), { type: 'parallel_done', results: results(outcomes), now: 5 });
    const joined = t.snapshot.captured.fix_all!;
    expect(joined).toMatchObject({ count: 10_000, succeeded: 9_900, failed: 100, unlisted: 9_000 });
    expect(joined.results).toHaveLength(1_000);
    expect(joined.results!.slice(0, 100).every((r) => r.outcome === 'no')).toBe(true);
    expect(joined.results!.slice(100, 103).map((r) => r.index)).toEqual([0, 1, 2]);
    expect(JSON.parse(joined.output)).toHaveLength(1_000);
    expect(JSON.stringify(t.snapshot).length).toBeLessThan(2 * 1024 * 1024);
    expect(t.snapshot.current).toBe('report');
    // Up to 1,000 items, every result in item order and no `unlisted`, as before.
    const small = next(d, toFanout(d, ''), {
      type: 'parallel_done',
      results: results(outcomes.slice(0, 1_000)),
      now: 5,
    });
    expect(small.snapshot.captured.fix_all!.results!.map((r) => r.index)).toEqual([...Array(1_000).keys()]);
    expect(small.snapshot.captured.fix_all).not.toHaveProperty('unlisted');
  });

  it('joins an empty list as on_yes with count 0', () => {
    const empty = fanLoop({ items: '${captured.failing.output}', loop: 'fix-one' });
    const started = toFanout(empty, '[]');
    expect(requestOf(started).items).toEqual([]);
    const t = next(empty, started, { type: 'parallel_done', results: [], now: 5 });
    expect(t.snapshot.current).toBe('done');
    expect(t.snapshot.captured.fix_all).toMatchObject({ count: 0, succeeded: 0, failed: 0, results: [] });
  });

  it('routes a fan-out that could not start as the error verdict', () => {
    const withError = fanLoop({ items: ['a'], loop: 'fix-one', isolation: 'worktree' }, { on_error: 'gave_up' });
    const t = next(withError, toFanout(withError, ''), {
      type: 'parallel_unavailable',
      error: 'not a git repository',
      now: 5,
    });
    expect(t.snapshot.current).toBe('gave_up');
    expect(t.events.find((e) => e.event === 'action_error')).toMatchObject({ error: 'not a git repository' });
  });

  it('simulates the state: all items pass, or none do', () => {
    const happy = simulate(d, 'all-pass', 20);
    expect(happy.outcome).toMatchObject({ final_state: 'done' });
    expect(happy.steps.find((s) => s.state === 'fix_all')).toMatchObject({ verdict: 'yes', to: 'done' });
    const fail = simulate(d, 'all-fail', 20);
    expect(fail.outcome).toMatchObject({ final_state: 'gave_up' });
  });
});

function problems(parallel: unknown, extra: Record<string, unknown> = {}) {
  const result = validateLoop({
    name: 'fan',
    description: 'd',
    initial: 'fan',
    states: { fan: { parallel, on_yes: 'done', on_no: 'done', ...extra }, done: { terminal: true } },
  });
  return result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.path.join('.')}: ${d.message}`);
}

describe('parallel states: validation', () => {
  it.each([
    [{ items: ['a'], loop: 'x', max_workers: 0 }, 'states.fan.parallel.max_workers'],
    [{ items: ['a'], loop: 'x', max_workers: -2 }, 'states.fan.parallel.max_workers'],
    [{ items: ['a'], loop: 'x', max_workers: 1.5 }, 'states.fan.parallel.max_workers'],
    [{ items: ['a'], loop: 'x', isolation: 'sandbox' }, 'states.fan.parallel.isolation'],
    [{ items: ['a'], loop: 'x', fail_mode: 'stop' }, 'states.fan.parallel.fail_mode'],
    [{ items: ['a'] }, 'parallel items need a loop'],
    [{ loop: 'x' }, 'parallel: needs items: or branches:'],
    [{ items: ['a'], branches: ['x'], loop: 'x' }, 'parallel: has both items: and branches:'],
    [{ branches: [] }, 'branches: lists no loop'],
    [{ branches: ['x'], loop: 'y' }, 'loop: does not apply to branches'],
    [{ items: ['a'], items_from: 'lines', loop: 'x' }, 'items_from: reads a rendered template'],
    [{ items: ['a'], loop: 'x', with: { t: '${env.HOME}' } }, 'is only allowed in action:'],
  ])('refuses %j (%s)', (parallel, expected) => {
    expect(problems(parallel).join('\n')).toContain(expected);
  });

  it('suggests the field meant for a misspelt one', () => {
    expect(problems({ items: ['a'], loop: 'x', max_worker: 2 }).join('\n')).toMatch(
      /states\.fan\.parallel\.max_worker: unknown field "max_worker" \(did you mean "max_workers"\?\)/,
    );
  });

  it('refuses an action or evaluate beside parallel:, and ${item} outside its with:', () => {
    expect(problems({ items: ['a'], loop: 'x' }, { action: 'echo' }).join('\n')).toContain('not an action of its own');
    const result = validateLoop({
      name: 'fan',
      description: 'd',
      initial: 'a',
      states: { a: { action: 'echo ${item}', next: 'done' }, done: { terminal: true } },
    });
    expect(result.diagnostics.map((d) => d.message).join('\n')).toContain("only defined in a parallel state's with:");
  });

  it('accepts the documented forms, with max_workers 4, collect and no isolation by default', () => {
    expect(problems({ items: '${context.x:-[]}', loop: 'x' })).toEqual([]);
    expect(problems({ branches: ['a', { loop: 'b', with: { k: '${item_index}' } }] })).toEqual([]);
    const d = fanLoop({ items: ['a'], loop: 'x' });
    expect(d.states.fix_all!.parallel).toMatchObject({ max_workers: 4, fail_mode: 'collect', isolation: 'none' });
    expect(validateLoop({ ...d }).diagnostics.filter((x) => x.severity === 'warning' && x.state === 'fix_all')).toEqual(
      [],
    );
  });

  it('names the file and line of a loop that does not exist, and of a with: its loop does not take', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-parallel-'));
    mkdirSync(join(cwd, '.loops'));
    writeFileSync(
      join(cwd, '.loops', 'one.yaml'),
      'name: one\ndescription: d\ninitial: a\nparameters:\n  test: { type: string }\nstates:\n  a: { terminal: true }\n',
    );
    const file = join(cwd, '.loops', 'fan.yaml');
    writeFileSync(
      file,
      [
        'name: fan',
        'description: d',
        'initial: fan',
        'states:',
        '  fan:',
        '    parallel:',
        '      items: [a, b]',
        '      loop: one',
        '      with: { tset: "${item}" }',
        '    on_yes: done',
        '    on_no: done',
        '  other:',
        '    parallel:',
        '      branches: [one, missing-loop]',
        '    on_yes: done',
        '  done: { terminal: true }',
        '',
      ].join('\n'),
    );
    const loaded = loadLoopFile(file, {}, cwd);
    const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          line: 9,
          message: expect.stringContaining('has no parameter "tset" (did you mean "test"?)'),
        }),
        expect.objectContaining({ line: 14, message: expect.stringContaining('missing-loop') }),
      ]),
    );
  });
});

describe('parallel states: status', () => {
  it('says how many items ended, failed and run, and names the running ones', () => {
    const running = Array.from({ length: 10 }, (_, i) => ({ index: 40 + i, run_id: `p.fix_all.3.${40 + i}` }));
    const lines = fanoutLines({ state: 'fix_all', total: 100, done: 37, failed: 3, running: running.slice(0, 4) });
    expect(lines).toEqual([
      'fix_all: 37/100 done (3 failed), 4 running',
      'item 40: p.fix_all.3.40',
      'item 41: p.fix_all.3.41',
      'item 42: p.fix_all.3.42',
      'item 43: p.fix_all.3.43',
    ]);
    expect(fanoutLines({ state: 's', total: 20, done: 0, failed: 0, running }).at(-1)).toBe('… and 2 more');
  });
});

describe('parallel states: show', () => {
  const d = def({
    name: 'fan',
    description: 'd',
    initial: 'checks',
    states: {
      checks: { parallel: { branches: ['lint', 'test'], fail_mode: 'fail_fast' }, on_yes: 'fix_all', on_no: 'failed' },
      fix_all: {
        parallel: { items: ['a'], loop: 'fix-one', max_workers: 8, isolation: 'worktree' },
        on_yes: 'done',
        on_partial: 'failed',
        on_no: 'failed',
      },
      done: { terminal: true },
      failed: { terminal: true, failure: true },
    },
  });

  it('draws the fan-out and the join in Mermaid, as valid Mermaid', () => {
    const text = renderMermaid(d).join('\n');
    expect(checkMermaid(text)).toEqual([]);
    expect(text).toContain('  state checks {');
    expect(text).toContain('    state checks_fork <<fork>>');
    expect(text).toContain('    checks_fork --> checks_1');
    expect(text).toContain('    checks_2 --> checks_join');
    expect(text).toContain('    state "fix-one #215; each item" as fix_all_1');
    expect(text).toContain('  fix_all --> failed : no, partial');
  });

  it('says what each parallel state fans out to in the text diagram and the states table', () => {
    const graph = buildGraph(d);
    expect(graph.nodes.checks!.fanOut?.text).toBe('lint | test (max 4, fail_fast)');
    expect(graph.nodes.fix_all!.fanOut?.text).toBe('fix-one × each item (max 8, worktree)');
    const lines = renderDiagram(graph, createStyle(false), 120).join('\n');
    expect(lines).toContain('fans out: lint | test (max 4, fail_fast) ⇉ join');
  });
});

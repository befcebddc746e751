/**
 * The runs list's rows (ui/page/runs-tree.ts): sub-runs folded under their parent until it is
 * opened, with a summary of their outcomes; and a captured value taken apart (ui/page/captured-text.ts).
 */
import { describe, expect, it } from 'vitest';
import type { RunRow } from '../../ui/server/wire.js';
import { listedRows } from '../../ui/page/runs-tree.js';
import { capturedParts, capturedText } from '../../ui/page/captured-text.js';

const run = (id: string, outcome: string, parent?: string, started = '2026-01-01T00:00:00.000Z'): RunRow => ({
  id,
  loop: parent ? 'item' : 'fan',
  status: outcome === 'running' ? 'running' : 'completed',
  open: outcome === 'running',
  outcome,
  started,
  ...(parent ? { parent } : {}),
});

describe('the runs list rows', () => {
  const runs = [
    run('fan-2', 'running'),
    // Listed newest first: the items started last come first.
    ...Array.from({ length: 20 }, (_, i) => run(`fan-2.fix.1.${19 - i}`, i < 3 ? 'running' : 'succeeded', 'fan-2')),
    run('ask-1', 'waiting'),
    run('fan-1', 'succeeded'),
    ...Array.from({ length: 20 }, (_, i) => run(`fan-1.fix.1.${i}`, 'succeeded', 'fan-1')),
    run('bad-1', 'error'),
    run('orphan.fix.1.3', 'failed', 'gone-long-ago'),
  ];

  it('folds sub-runs under their parent, so the runs of their own stay in view', () => {
    const rows = listedRows(runs, new Set());
    expect(rows.map((r) => r.run.id)).toEqual(['fan-2', 'ask-1', 'fan-1', 'bad-1', 'orphan.fix.1.3']);
    expect(rows[0]).toMatchObject({ children: 20, open: false, summary: '17 succeeded · 3 running' });
    expect(rows[1]).toMatchObject({ children: 0 });
  });

  it("shows an opened parent's sub-runs under it, in item order", () => {
    const rows = listedRows(runs, new Set(['fan-2']));
    expect(rows).toHaveLength(25);
    expect(rows[0]).toMatchObject({ open: true, depth: 0 });
    expect(rows.slice(1, 21).map((r) => r.run.id)).toEqual(Array.from({ length: 20 }, (_, i) => `fan-2.fix.1.${i}`));
    expect(rows[1]!.depth).toBe(1);
    expect(rows[21]!.run.id).toBe('ask-1');
  });
});

describe('a captured value', () => {
  it('shows JSON pretty-printed, text as it is, and an empty value as none', () => {
    expect(capturedText('{"a":[1,2],"b":"x\\ny"}')).toBe('{\n  "a": [\n    1,\n    2\n  ],\n  "b": "x\\ny"\n}');
    expect(capturedText('plain\ntext')).toBe('plain\ntext');
    expect(capturedText('{not json')).toBe('{not json');
    expect(capturedText('')).toBeUndefined();
    expect(capturedText('  \n')).toBeUndefined();
    expect(capturedText([{ out: '' }])).toBe('[\n  {\n    "out": ""\n  }\n]');
  });

  it('takes a captured action apart: output as text, an empty one said so, its exit and other fields', () => {
    const results = [{ index: 0, outcome: 'yes', captured: { said: { output: 'item "a"\n' } } }];
    const join = capturedParts({
      output: JSON.stringify(results),
      stderr: '',
      exit_code: 0,
      duration_ms: 5,
      results,
      count: 1,
    });
    expect(join).toMatchObject({ exitCode: 0, durationMs: 5 });
    expect(join.output).toBe(JSON.stringify(results, null, 2));
    expect(join.stderr).toBeUndefined();
    // `results` is the output again: shown once.
    expect(join.fields).toEqual([['count', '1']]);
    expect(capturedParts({ output: '', stderr: 'warn\n', exit_code: 1, duration_ms: 1200 })).toEqual({
      exitCode: 1,
      durationMs: 1200,
      output: undefined,
      stderr: 'warn\n',
      fields: [],
    });
  });
});

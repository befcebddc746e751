/**
 * The `ll-loop ui` server's runs index: the whole list once, then each poll asks the store only for
 * the open runs and those started or closed since the previous reading (less a margin), keeping
 * the closed ones it has; the whole list again after a while.
 */
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../runs/find/find-runs.js';
import { changedSince, FULL_EVERY_MS, MARGIN_MS, RunsIndex } from '../../ui/server/runs-index.js';

const run = (id: string, started: number, open = false): RunSummary => ({
  id,
  temporalRunId: `r-${id}`,
  loop: 'l',
  status: open ? 'RUNNING' : 'COMPLETED',
  open,
  taskQueue: 'q',
  startTime: new Date(started),
});

describe('the runs index', () => {
  it('reads the whole list once, then only what changed, and the whole list again later', async () => {
    let clock = 1_000_000;
    const asked: Array<string | undefined> = [];
    let answer: RunSummary[] = [run('a', 1), run('b', 2, true)];
    const index = new RunsIndex(
      (where) => {
        asked.push(where);
        return Promise.resolve(answer);
      },
      3,
      () => clock,
    );
    expect((await index.read()).map((r) => r.id)).toEqual(['b', 'a']);
    clock += 500;
    answer = [run('b', 2), run('c', 3, true)];
    expect((await index.read()).map((r) => [r.id, r.open])).toEqual([
      ['c', true],
      ['b', false],
      ['a', false],
    ]);
    expect(asked[0]).toBeUndefined();
    expect(asked[1]).toBe(changedSince(1_000_000 - MARGIN_MS));
    // At most `limit` runs, the newest.
    clock += 500;
    answer = [run('d', 4)];
    expect((await index.read()).map((r) => r.id)).toEqual(['d', 'c', 'b']);
    clock += FULL_EVERY_MS;
    answer = [run('d', 4)];
    expect((await index.read()).map((r) => r.id)).toEqual(['d']);
    expect(asked.at(-1)).toBeUndefined();
  });
});

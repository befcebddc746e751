/**
 * The runs list of `ll-loop ui` is read from the server's start and kept fresh while no page
 * watches it: a page that comes gets the newest list at once, from memory, not the list of the
 * server's start nor after a reading of 1,000 runs.
 */
import { describe, expect, it } from 'vitest';
import { RunsFeed } from '../../ui/server/runs-feed.js';
import type { RunSource } from '../../ui/server/run-source.js';
import type { RunRow, RunsMessage } from '../../ui/server/wire.js';

const row = (id: string): RunRow => ({
  id,
  loop: 'l',
  status: 'completed',
  open: false,
  outcome: 'succeeded',
  started: new Date(0).toISOString(),
});

async function until(what: string, cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the runs feed', () => {
  it('keeps the list fresh while no page watches, and gives a page the newest at once', async () => {
    let runs = [row('a')];
    let reads = 0;
    const source = {
      listRuns: () => {
        reads += 1;
        return Promise.resolve(runs);
      },
    } as unknown as RunSource;
    const feed = new RunsFeed(source);
    feed.warm();
    try {
      await until('the first reading', () => reads >= 1);
      runs = [row('b'), row('a')];
      const before = reads;
      // Read again with no page watching.
      await until('a reading with no page', () => reads > before);
      // Its result is kept: the list a page is given synchronously, when it subscribes.
      await new Promise((r) => setTimeout(r, 50));
      const got: RunsMessage[] = [];
      const leave = feed.subscribe({ send: (m) => got.push(m) });
      expect(got[0]).toEqual({ type: 'runs', runs: [row('b'), row('a')] });
      expect(await feed.list()).toEqual([row('b'), row('a')]);
      leave();
    } finally {
      feed.stop();
    }
  });
});

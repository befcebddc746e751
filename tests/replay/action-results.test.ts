/**
 * The progress display and `ll-loop logs` pair each `action_complete` event with the n-th
 * `runAction` result of the same execution's history (client/follow/action-results.ts). Checked on
 * every committed history — remote and local activities, retries, cancel, timeout, continue-as-new,
 * sub-loops: the replay emits exactly as many `action_complete` events as the history holds
 * results, and each pair agrees on the exit code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { actionResultsOf } from '../../client/follow/action-results.js';
import type { HistoryEvent } from '../../client/runs/temporal-history.js';
import { HistoryReplayer } from '../../worker/replay-events.js';
import { committedSets } from './histories.js';

describe('action results pair with action_complete events', () => {
  for (const { dir, manifest } of committedSets()) {
    it(`in every execution recorded by ll-loop ${manifest.version}`, async () => {
      const replayer = new HistoryReplayer();
      let paired = 0;
      try {
        for (const scenario of manifest.scenarios) {
          for (const execution of scenario.executions) {
            const history = historyFromJSON(JSON.parse(readFileSync(join(dir, execution.file), 'utf8')));
            const replayed = await replayer.replay(history, execution.workflowId);
            expect(replayed.error, execution.file).toBeUndefined();
            const completes = replayed.events.filter((e) => e.event === 'action_complete').map((e) => e.exit_code);
            const results = actionResultsOf((history.events ?? []) as HistoryEvent[]).map((r) => r.exit_code);
            expect(results, `${manifest.version}/${execution.file}`).toEqual(completes);
            paired += results.length;
          }
        }
      } finally {
        await replayer.close();
      }
      // The sets hold many actions; a pairing that found none would pass the checks above.
      expect(paired).toBeGreaterThan(10);
    }, 120_000);
  }
});

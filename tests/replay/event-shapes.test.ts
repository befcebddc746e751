/**
 * The events of every committed history, replayed with today's bundle, are members of the event
 * union with every field it gives them (fsm/run/events.ts), and each reader of the stream — the
 * progress display, `logs`' collector, `history`'s lines — reads them all without throwing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { EVENT_FIELDS, isCompleteEvent, type TimedEvent } from '../../fsm/run/events.js';
import { createHumanReporter } from '../../client/reporters/human.js';
import { plainFields } from '../../client/reporters/plain-event.js';
import { createStyle } from '../../client/reporters/style.js';
import { actionLogCollector } from '../../client/follow/action-logs.js';
import { HistoryReplayer } from '../../worker/replay-events.js';
import { committedSets } from './histories.js';

describe('the events of committed histories', () => {
  const seen = new Set<string>();
  for (const { dir, manifest } of committedSets()) {
    it(`recorded by ll-loop ${manifest.version} have today's shapes and every reader reads them`, async () => {
      const replayer = new HistoryReplayer();
      try {
        for (const scenario of manifest.scenarios) {
          for (const execution of scenario.executions) {
            const history = historyFromJSON(JSON.parse(readFileSync(join(dir, execution.file), 'utf8')));
            const replayed = await replayer.replay(history, execution.workflowId);
            expect(replayed.error, execution.file).toBeUndefined();
            const events: TimedEvent[] = replayed.events;
            const odd = events.filter((e) => !isCompleteEvent(e)).map((e) => JSON.stringify(e));
            expect(odd, `${manifest.version}/${execution.file}`).toEqual([]);
            let text = '';
            const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10, 'verbose');
            const records: unknown[] = [];
            const collect = actionLogCollector(execution.workflowId, (r) => records.push(r));
            for (const e of events) {
              reporter.onEvent(e);
              collect(e);
              expect(plainFields(e)).toContain(`seq=${e.seq}`);
              seen.add(e.event);
            }
            expect(records.length).toBe(events.filter((e) => e.event === 'action_complete').length);
            if (events.some((e) => e.event === 'state_enter')) expect(text).toMatch(/\[\d+\/\d+\]/);
          }
        }
      } finally {
        await replayer.close();
      }
    }, 120_000);
  }
  it('cover the common events', () => {
    // A replay that produced none would pass the checks above.
    for (const name of [
      'loop_start',
      'state_enter',
      'action_start',
      'action_complete',
      'evaluate',
      'route',
      'loop_complete',
    ] as const) {
      expect(name in EVENT_FIELDS).toBe(true);
      expect(seen.has(name), name).toBe(true);
    }
  });
});

/**
 * Every committed history replayed with today's bundle, once per set, and its events checked:
 *
 * - **Shapes and readers.** The events are members of the event union with every field it gives
 *   them (fsm/run/events.ts), and each reader of the stream — the progress display, `logs`'
 *   collector, `history`'s lines — reads them all without throwing.
 * - **Action results.** The progress display and `ll-loop logs` pair each `action_complete` event
 *   with the n-th `runAction` result of the same execution's history
 *   (client/follow/action-results.ts): remote and local activities, retries, cancel, timeout,
 *   continue-as-new, sub-loops. The replay emits exactly as many `action_complete` events as the
 *   history holds results, and each pair agrees on the exit code.
 *
 * One replay serves both (they were two files replaying every history each).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { EVENT_FIELDS, isCompleteEvent, type TimedEvent } from '../../fsm/run/events.js';
import { actionResultsOf } from '../../client/follow/action-results.js';
import { actionLogCollector } from '../../client/follow/action-logs.js';
import { createHumanReporter } from '../../client/reporters/human.js';
import { plainFields } from '../../client/reporters/plain-event.js';
import { createStyle } from '../../client/reporters/style.js';
import type { HistoryEvent } from '../../client/runs/temporal-history.js';
import { HistoryReplayer, type ReplayedExecution } from '../../worker/replay-events.js';
import { committedSets, type HistoryManifest, type RecordedExecution } from './histories.js';

interface Replayed {
  execution: RecordedExecution;
  history: History;
  replayed: ReplayedExecution;
}

/**
 * Each set's replay, until the last of the tests that read it (one in each describe below) has
 * taken it: the forks keep their process for all their files, so a map kept for the fork's life
 * would hold every set's replayed events to its end.
 */
const READERS_PER_SET = 2;
const replays = new Map<string, { set: Promise<Replayed[]>; readers: number }>();

/** Every execution of the set in `dir`, replayed once (the first test of the set to ask replays it). */
function replayedSet(dir: string, manifest: HistoryManifest): Promise<Replayed[]> {
  let entry = replays.get(dir);
  if (entry === undefined) {
    entry = { set: replaySet(dir, manifest), readers: READERS_PER_SET };
    replays.set(dir, entry);
  }
  entry.readers -= 1;
  if (entry.readers === 0) replays.delete(dir);
  return entry.set;
}

async function replaySet(dir: string, manifest: HistoryManifest): Promise<Replayed[]> {
  const replayer = new HistoryReplayer();
  const out: Replayed[] = [];
  try {
    for (const execution of manifest.scenarios.flatMap((s) => s.executions)) {
      const history = historyFromJSON(JSON.parse(readFileSync(join(dir, execution.file), 'utf8')));
      out.push({ execution, history, replayed: await replayer.replay(history, execution.workflowId) });
    }
  } finally {
    await replayer.close();
  }
  return out;
}

describe('the events of committed histories', () => {
  const seen = new Set<string>();
  for (const { dir, manifest } of committedSets()) {
    it(`recorded by ll-loop ${manifest.version} have today's shapes and every reader reads them`, async () => {
      for (const { execution, replayed } of await replayedSet(dir, manifest)) {
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

describe('action results pair with action_complete events', () => {
  for (const { dir, manifest } of committedSets()) {
    it(`in every execution recorded by ll-loop ${manifest.version}`, async () => {
      let paired = 0;
      for (const { execution, history, replayed } of await replayedSet(dir, manifest)) {
        expect(replayed.error, execution.file).toBeUndefined();
        const completes = replayed.events.filter((e) => e.event === 'action_complete').map((e) => e.exit_code);
        const results = actionResultsOf((history.events ?? []) as HistoryEvent[]).map((r) => r.exit_code);
        expect(results, `${manifest.version}/${execution.file}`).toEqual(completes);
        paired += results.length;
      }
      // The sets hold many actions; a pairing that found none would pass the checks above.
      expect(paired).toBeGreaterThan(10);
    }, 120_000);
  }
});

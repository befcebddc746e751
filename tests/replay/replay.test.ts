/**
 * Every committed history (tests/fixtures/histories/<version>/) replayed once, without a server,
 * through today's workflow bundle, as ll-loop's own readers replay (worker/replay-events.ts), and
 * checked three ways:
 *
 * - **The gate.** Each execution replays without error. A change to the workflow or the core that
 *   alters the commands an earlier release recorded — without a version gate — fails here with
 *   Temporal's non-determinism error, naming the scenario and the file.
 * - **Shapes and readers.** The events are members of the event union with every field it gives
 *   them (fsm/run/events.ts), and each reader of the stream — the progress display, `logs`'
 *   collector, `history`'s lines — reads them all without throwing.
 * - **Action results.** The progress display and `ll-loop logs` pair each `action_complete` event
 *   with the n-th `runAction` result of the same execution's history
 *   (runs/follow/action-results.ts): remote and local activities, retries, cancel, timeout,
 *   continue-as-new, sub-loops. The replay emits exactly as many `action_complete` events as the
 *   history holds results, and each pair agrees on the exit code.
 *
 * One replay serves all three: they were three files, then two, each replaying every history.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { EVENT_FIELDS, isCompleteEvent } from '../../fsm/run/event-shape.js';
import { actionResultsOf } from '../../runs/follow/action-results.js';
import { actionLogCollector } from '../../runs/follow/action-logs.js';
import { createHumanReporter } from '../../reporters/human.js';
import { plainFields } from '../../reporters/plain-event.js';
import { createStyle } from '../../reporters/style.js';
import type { HistoryEvent } from '../../runs/find/temporal-history.js';
import { HistoryReplayer, type ReplayedExecution } from '../../worker/replay-events.js';
import { committedSets, type RecordedExecution } from './histories.js';

interface Replayed {
  name: string;
  execution: RecordedExecution;
  history: History;
  replayed: ReplayedExecution;
}

const sets = committedSets();

/** Each set's executions replayed, by the set's version; emptied after the file's tests. */
const replays = new Map<string, Replayed[]>();

beforeAll(async () => {
  // Today's bundle, built for this test run (tests/setup/workflow-bundle.ts), not an older one in dist/.
  const bundle = process.env.LL_WORKFLOW_BUNDLE;
  if (!bundle || !existsSync(bundle))
    throw new Error('LL_WORKFLOW_BUNDLE is not set by the global setup (tests/setup/workflow-bundle.ts)');
  // One replay worker for every set (the bundle is loaded once); histories one at a time.
  const replayer = new HistoryReplayer();
  try {
    for (const { dir, manifest } of sets) {
      const out: Replayed[] = [];
      for (const execution of manifest.scenarios.flatMap((s) => s.executions)) {
        const history = historyFromJSON(JSON.parse(readFileSync(join(dir, execution.file), 'utf8')));
        const replayed = await replayer.replay(history, execution.workflowId);
        out.push({ name: `${manifest.version}/${execution.file}`, execution, history, replayed });
      }
      replays.set(manifest.version, out);
    }
  } finally {
    await replayer.close();
  }
}, 300_000);
afterAll(() => replays.clear());

/** The replays of a set; a set the replay never reached fails the test that asks. */
function replayedSet(version: string): Replayed[] {
  const set = replays.get(version);
  if (set === undefined) throw new Error(`the histories of ${version} were not replayed`);
  return set;
}

describe('committed histories replay with today’s code', () => {
  it('at least one set is committed, with every loop shape', () => {
    expect(sets.length).toBeGreaterThan(0);
    for (const { manifest } of sets) {
      expect(manifest.scenarios.map((s) => s.name)).toEqual(
        expect.arrayContaining([
          'shell',
          'shell-local',
          'prompt',
          'llm-structured',
          'subloop',
          'retry',
          'maintain',
          'continue-as-new',
          'cancel',
          'timeout',
        ]),
      );
    }
  });

  for (const { manifest } of sets) {
    describe(`ll-loop ${manifest.version}`, () => {
      for (const scenario of manifest.scenarios) {
        it(`${scenario.name}: ${scenario.covers}`, () => {
          const byFile = new Map(replayedSet(manifest.version).map((r) => [r.execution.file, r]));
          for (const execution of scenario.executions) {
            const name = `${manifest.version}/${execution.file}`;
            const replayed = byFile.get(execution.file);
            expect(replayed, `${name} was replayed`).toBeDefined();
            expect(replayed?.replayed.error, name).toBeUndefined();
          }
        });
      }
    });
  }
});

describe('the events of committed histories', () => {
  const seen = new Set<string>();
  for (const { manifest } of sets) {
    it(`recorded by ll-loop ${manifest.version} have today's shapes and every reader reads them`, () => {
      for (const { name, execution, replayed } of replayedSet(manifest.version)) {
        expect(replayed.error, name).toBeUndefined();
        const events: TimedEvent[] = replayed.events;
        const odd = events.filter((e) => !isCompleteEvent(e)).map((e) => JSON.stringify(e));
        expect(odd, name).toEqual([]);
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
    });
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
  for (const { manifest } of sets) {
    it(`in every execution recorded by ll-loop ${manifest.version}`, () => {
      let paired = 0;
      for (const { name, history, replayed } of replayedSet(manifest.version)) {
        expect(replayed.error, name).toBeUndefined();
        const completes = replayed.events.filter((e) => e.event === 'action_complete').map((e) => e.exit_code);
        const results = actionResultsOf((history.events ?? []) as HistoryEvent[]).map((r) => r.exit_code);
        expect(results, name).toEqual(completes);
        paired += results.length;
      }
      // The sets hold many actions; a pairing that found none would pass the checks above.
      expect(paired).toBeGreaterThan(10);
    });
  }
});

/**
 * `ll-loop rerun` of runs of earlier releases: their snapshots come from their histories by replay
 * (runs/control/fork-point.ts). For each committed set's stopped (cancel), failed and
 * continued-as-new runs, the fork point of a state's first and last visit is the snapshot at that
 * `state_enter`, and a run begun from it starts there with `loop_fork`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { forkPointOf, replayRun } from '../../runs/control/fork-point.js';
import type { HistoryEvent } from '../../runs/find/temporal-history.js';
import { upgradeSnapshot } from '../../fsm/run/snapshot-upgrade.js';
import { transition } from '../../fsm/run/transition.js';
import { HistoryReplayer } from '../../worker/replay-events.js';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import { committedSets } from './histories.js';

const SCENARIOS = ['cancel', 'fail-on-non-terminal', 'continue-as-new', 'retry'];

describe('rerun of a run recorded by an earlier release', () => {
  for (const { dir, manifest } of committedSets()) {
    it(`forks the stopped, failed and continued runs of ll-loop ${manifest.version}`, async () => {
      let forked = 0;
      // One replayer for the set, one replay per run for both of its visits (what `rerun` does
      // for one: runs/control/fork-point.ts forkPointIn).
      const replayer = new HistoryReplayer({ everyState: true });
      try {
        for (const scenario of manifest.scenarios.filter((s) => SCENARIOS.includes(s.name))) {
          const main = scenario.executions.filter((e) => e.workflowId === scenario.executions[0]!.workflowId);
          const histories = main.map(
            (e) =>
              (historyFromJSON(JSON.parse(readFileSync(join(dir, e.file), 'utf8'))).events ?? []) as HistoryEvent[],
          );
          const data = histories[0]![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!;
          const input = JSON.parse(Buffer.from(data).toString('utf8')) as LoopWorkflowInput;
          const def = input.definition;
          const run = await replayRun(histories, main[0]!.workflowId, replayer);
          expect(run.failed, scenario.name).toBeUndefined();
          const enters = run.events.filter((e) => e.event === 'state_enter');
          const state = enters.at(-1)!.state as string;
          const visits = enters.filter((e) => e.state === state);
          for (const visit of [1, visits.length]) {
            const enter = visits[visit - 1]!;
            const point = forkPointOf(run, main[0]!.workflowId, { state, visit }, Object.keys(def.states));
            const where = `${manifest.version}/${scenario.name} ${state}#${visit}`;
            expect(point, where).toMatchObject({ event: enter.seq, visit, visits: visits.length });
            expect(point.snapshot, where).toMatchObject({ current: state, iteration: enter.iteration });
            const begun = transition(def, null, {
              type: 'start',
              now: 0,
              resumeFrom: { runId: 'old', snapshot: upgradeSnapshot(point.snapshot), fork: { event: point.event } },
            });
            expect(begun.events[0], where).toMatchObject({
              event: 'loop_fork',
              forked_from: `old@${enter.seq}`,
              state,
            });
            expect(begun.events[1], where).toMatchObject({ event: 'state_enter', state });
            forked += 1;
          }
        }
      } finally {
        await replayer.close();
      }
      expect(forked).toBeGreaterThan(0);
    }, 120_000);
  }
});

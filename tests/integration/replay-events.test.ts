/**
 * One interpreter: the event stream a replay of a run's history gives (worker/replay-events.ts,
 * both directly and through the follower every command uses, client/runs/follow-events.ts) is
 * the stream the live run emitted, byte for byte — for every loop shape of the committed
 * histories — and the run's events file holds that stream once.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsPath } from '../../worker/run-files.js';
import { followEvents } from '../../client/runs/follow-events.js';
import { HistoryReplayer } from '../../worker/replay-events.js';
import { SCENARIOS } from '../replay/scenarios.js';
import { closedAs, closeTemporal, definition, project, runLoop, temporal, toolEnv } from './harness.js';

afterAll(closeTemporal);

/** Every execution of a workflow id's continue-as-new chain, replayed in order. */
async function replayChain(workflowId: string): Promise<unknown[]> {
  const { client } = await temporal();
  const replayer = new HistoryReplayer();
  const events: unknown[] = [];
  try {
    let runId = (await client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.firstRunId ?? undefined;
    while (runId) {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      const replayed = await replayer.replay(history, workflowId);
      expect(replayed.error).toBeUndefined();
      events.push(...replayed.events);
      runId = (history.events ?? []).map((e) => e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId).find(Boolean) ?? undefined;
    }
  } finally {
    await replayer.close();
  }
  return events;
}

describe('events by replay equal the live events', () => {
  for (const scenario of SCENARIOS.filter((s) => !s.failOnNonTerminal)) {
    it(`${scenario.name}: ${scenario.covers}`, async () => {
      const p = project(['mypy']);
      const env = { ...toolEnv(p), ...(scenario.prepare?.(p) ?? {}) };
      const { client } = await temporal();
      const run = await runLoop(definition(scenario.definition), {
        cwd: p.cwd,
        env,
        localActivityMaxTimeoutS: scenario.localActivityMaxTimeoutS ?? 0,
        ...(scenario.historyEventLimit === undefined ? {} : { historyEventLimit: scenario.historyEventLimit }),
        ...(scenario.cancelAfterMs === undefined
          ? {}
          : {
              onStarted: async (id: string) => {
                await new Promise((r) => setTimeout(r, scenario.cancelAfterMs));
                await client.workflow.getHandle(id).cancel();
              },
            }),
      });
      const live = run.events.map((e) => JSON.stringify(e));
      expect(live.length).toBeGreaterThan(2);
      const replayed = (await replayChain(run.workflowId)).map((e) => JSON.stringify(e));
      expect(replayed).toEqual(live);
      const followed = await followEvents(client, run.workflowId, { children: false });
      expect(followed.events.map((e) => JSON.stringify(e))).toEqual(live);
      // The end the workflow recorded: its result, closed the way the loop ended.
      expect(followed.end?.status).toBe(closedAs(run.result));
      expect(followed.end?.result).toEqual(run.result);
      const file = readFileSync(eventsPath(p.cwd, run.workflowId), 'utf8').trim().split('\n');
      expect(file).toEqual(live);
    });
  }
});

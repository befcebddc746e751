/**
 * One interpreter: the event stream a replay of a run's history gives (worker/replay-events.ts,
 * both directly and through the follower every command uses, runs/follow/follow-events.ts) is
 * the stream the live run emitted, byte for byte — for every loop shape of the committed
 * histories — and the run's events file holds that stream once.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { eventsPath } from '../../host/run-files.js';
import { followEvents } from '../../runs/follow/follow-events.js';
import { HistoryReplayer } from '../../worker/replay-events.js';
import { SCENARIOS } from '../replay/scenarios.js';
import { closedAs, closeTemporal, definition, project, runLoop, temporal, toolEnv } from './harness.js';

afterAll(closeTemporal);

/** Every execution of a workflow id's continue-as-new chain, replayed in order. */
async function replayChain(workflowId: string, expect: ExpectStatic): Promise<unknown[]> {
  const { client } = await temporal();
  const replayer = new HistoryReplayer();
  const events: unknown[] = [];
  try {
    let runId =
      (await client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.firstRunId ?? undefined;
    while (runId) {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      const replayed = await replayer.replay(history, workflowId);
      expect(replayed.error).toBeUndefined();
      events.push(...replayed.events);
      runId =
        (history.events ?? [])
          .map((e) => e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId)
          .find(Boolean) ?? undefined;
    }
  } finally {
    await replayer.close();
  }
  return events;
}

// Concurrent (vitest's maxConcurrency at a time): each scenario runs on a worker and task queue
// of its own and mostly waits on the server and its timers, so they need not wait for each other.
describe.concurrent('events by replay equal the live events', () => {
  for (const scenario of SCENARIOS.filter((s) => !s.failOnNonTerminal)) {
    it(`${scenario.name}: ${scenario.covers}`, async ({ expect }) => {
      const p = project(['mypy']);
      const env = { ...toolEnv(p), ...(scenario.prepare?.(p) ?? {}) };
      const { client } = await temporal();
      const run = await runLoop(definition(scenario.definition), {
        cwd: p.cwd,
        env,
        localActivityMaxTimeoutS: scenario.localActivityMaxTimeoutS ?? 0,
        ...(scenario.historyEventLimit === undefined ? {} : { historyEventLimit: scenario.historyEventLimit }),
        // The rules the scenarios' paths need (a person's updates, stdout signals, bursts and their
        // stops, a person's controls during them, checks seen quick and their chains, a quick
        // loop's fan-out items in lanes).
        steering: true,
        stdoutSignals: true,
        quickBursts: true,
        stopInBursts: true,
        controlsAfterBursts: true,
        learnedQuick: true,
        learnedChains: true,
        laneItems: true,
        onStarted: async (id: string) => {
          await scenario.drive?.(client.workflow.getHandle(id), p);
          if (scenario.cancelAfterMs === undefined) return;
          await new Promise((r) => setTimeout(r, scenario.cancelAfterMs));
          await client.workflow.getHandle(id).cancel();
        },
      });
      const live = run.events.map((e) => JSON.stringify(e));
      expect(live.length).toBeGreaterThan(2);
      const replayed = (await replayChain(run.workflowId, expect)).map((e) => JSON.stringify(e));
      expect(replayed).toEqual(live);
      const followed = await followEvents(client, run.workflowId, { children: false });
      expect(followed.events.map((e) => JSON.stringify(e))).toEqual(live);
      // The end the workflow recorded: its result, closed the way the loop ended.
      expect(followed.end?.status).toBe(closedAs(run.result));
      expect(followed.end?.result).toEqual(run.result);
      const file = readFileSync(eventsPath(p.cwd, run.workflowId), 'utf8').trim().split('\n');
      expect(file).toEqual(live);
    }, 180_000); // side by side on a loaded machine, a run of quick actions took over a minute
  }
});

describe('a history read while its run is in a workflow task', () => {
  // The follower fetches histories of live runs: one that ends at a WorkflowTaskStarted holding
  // local actions must not make the replay run them (it has no activities) and show a failure.
  it('shows only what the history records: no invented failure, the live stream cut short', async () => {
    const p = project();
    const run = await runLoop(
      definition({
        name: 'quick',
        initial: 'a',
        default_timeout: 10,
        max_iterations: 4,
        states: {
          a: { action: 'echo a1', next: 'b' },
          b: { action: 'sleep 0.05; echo b', on_yes: 'a', on_no: 'done' },
          done: { terminal: true },
        },
      }),
      { cwd: p.cwd, env: toolEnv(p), localActivityMaxTimeoutS: 30 },
    );
    const { client } = await temporal();
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    const events = history.events ?? [];
    // Quick actions all run inside workflow tasks (their markers follow the task's completion):
    // cut the history right after each task started, as a poll during that task sees it.
    expect(events.some((e) => e.markerRecordedEventAttributes)).toBe(true);
    const cuts = events.flatMap((e, i) => (e.workflowTaskStartedEventAttributes ? [i + 1] : []));
    expect(cuts.length).toBeGreaterThan(0);
    const live = run.events.map((e) => JSON.stringify(e));
    const replayer = new HistoryReplayer();
    try {
      for (const cut of cuts) {
        const partial = await replayer.replay({ ...history, events: events.slice(0, cut) }, run.workflowId);
        const shown = partial.events.map((e) => JSON.stringify(e));
        expect(shown.join('\n')).not.toMatch(/not registered|could not run/);
        expect(live.slice(0, shown.length)).toEqual(shown);
      }
    } finally {
      await replayer.close();
    }
  });
});

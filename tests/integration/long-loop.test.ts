/**
 * Long loops (issue 3): thousands of transitions with quick local activities, continuing as new
 * many times, with captured values, counters and the event stream carried across the runs, in
 * chains of quick actions in bursts (the `quickBursts` rule).
 * The 20,000-transition run is in the benchmark (`BENCH_LONG=1 npm run bench`).
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsPath } from '../../host/run-files.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { closeTemporal, definition, project, runLoop, temporal, type RunOutcome } from './harness.js';

afterAll(closeTemporal);

/** A loop that alternates a passing and a failing action `transitions` times, capturing both. */
function alternate(transitions: number): LoopDefinition {
  return definition({
    name: 'long-alternate',
    description: 'alternate a true and a false action',
    initial: 'a',
    max_iterations: transitions,
    max_steps: transitions,
    default_timeout: 5,
    states: {
      a: { action: 'true; echo ${state.iteration}', capture: 'pass', on_yes: 'b', on_no: 'b' },
      b: { action: 'false', capture: 'b', on_yes: 'a', on_no: 'a' },
      done: { terminal: true },
    },
  });
}

/** The run ended at its step limit with the values of its last actions, counted without a gap. */
function expectCompleteChain(run: RunOutcome, cwd: string, transitions: number): void {
  expect(run.result).toMatchObject({
    terminated_by: 'max_steps',
    steps: transitions,
    iterations: transitions / 2,
    final_state: 'a',
  });
  expect(run.result.captured.pass?.output).toBe(String(transitions / 2));
  expect(run.result.captured.b?.exit_code).toBe(1);
  // One event stream across the chain: every transition once, in order.
  const lines = readFileSync(eventsPath(cwd, run.workflowId), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event: string; iteration?: number });
  expect(lines.filter((e) => e.event === 'loop_start')).toHaveLength(1);
  expect(lines.filter((e) => e.event === 'loop_complete')).toHaveLength(1);
  const passes = lines.filter((e) => e.event === 'state_enter').map((e) => e.iteration);
  expect(passes).toHaveLength(transitions);
  expect(passes.every((n, i) => n === Math.floor(i / 2) + 1)).toBe(true);
}

/** The run ids of the chain, and each history's events. */
async function chainHistories(
  workflowId: string,
): Promise<Array<{ runId: string; startedTasks: number[]; length: number }>> {
  const { client } = await temporal();
  const runs: string[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(w.runId);
  return Promise.all(
    runs.map(async (runId) => {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      const startedTasks = (history.events ?? [])
        .filter((e) => e.workflowTaskStartedEventAttributes)
        .map((e) => Number(e.eventId));
      return { runId, startedTasks, length: history.events?.length ?? 0 };
    }),
  );
}

/**
 * The chain ran as more than three runs, each history bounded: the run continues as new in the
 * first workflow task that starts past `limit` events, so no task starts after that one, and the
 * history stays under `bound`.
 */
async function expectBoundedChain(workflowId: string, limit: number, bound: number): Promise<void> {
  const histories = await chainHistories(workflowId);
  expect(histories.length).toBeGreaterThan(3);
  for (const h of histories) {
    const firstPastLimit = h.startedTasks.find((id) => id > limit);
    if (firstPastLimit !== undefined) expect(h.startedTasks.filter((id) => id > firstPastLimit)).toEqual([]);
    expect(h.length).toBeLessThan(bound);
  }
}

describe('long loops', () => {
  it('2,000 transitions of quick actions in bursts complete across many continue-as-new runs', async () => {
    const p = project();
    const limit = 30;
    const run = await runLoop(alternate(2_000), {
      cwd: p.cwd,
      localActivityMaxTimeoutS: 30,
      historyEventLimit: limit,
      quickBursts: true,
    });
    expectCompleteChain(run, p.cwd, 2_000);
    // A workflow task records at most one burst (its marker and the flush's timer) besides the
    // task's own events.
    await expectBoundedChain(run.workflowId, limit, limit + 20);
  }, 300_000);
});

/**
 * Long loops (issue 3): thousands of transitions with quick local activities, continuing as new
 * many times, with captured values, counters and the event stream carried across the runs.
 * The 20,000-transition run is in the benchmark (`BENCH_LONG=1 npm run bench`): at ~15 ms per
 * transition on the 2-core reference machine it takes about five minutes, too long for the suite.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsPath } from '../../host/run-files.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(closeTemporal);

const TRANSITIONS = 2_000;

describe('long loops', () => {
  it(`${TRANSITIONS} transitions of local activities complete across many continue-as-new runs`, async () => {
    const p = project();
    const def = definition({
      name: 'long-alternate',
      description: 'alternate a true and a false action',
      initial: 'a',
      max_iterations: TRANSITIONS,
      max_steps: TRANSITIONS,
      default_timeout: 5,
      states: {
        a: { action: 'true; echo ${state.iteration}', capture: 'pass', on_yes: 'b', on_no: 'b' },
        b: { action: 'false', capture: 'b', on_yes: 'a', on_no: 'a' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, localActivityMaxTimeoutS: 30, historyEventLimit: 300 });
    expect(run.result).toMatchObject({
      terminated_by: 'max_steps',
      steps: TRANSITIONS,
      iterations: TRANSITIONS / 2,
      final_state: 'a',
    });
    // Captured values come from the last runs of the chain, counted without a gap.
    expect(run.result.captured.pass?.output).toBe(String(TRANSITIONS / 2));
    expect(run.result.captured.b?.exit_code).toBe(1);
    const { client } = await temporal();
    const runs: string[] = [];
    for await (const w of client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) runs.push(w.runId);
    expect(runs.length).toBeGreaterThan(3);
    // Each history stayed bounded: the run continues as new in the first workflow task that starts
    // past the limit, so a history holds the limit plus at most one workflow task of local results:
    // up to 100 quick actions (the flush threshold), each a marker and a LoopState upsert.
    for (const runId of runs) {
      const history = await client.workflow.getHandle(run.workflowId, runId).fetchHistory();
      const started = (history.events ?? [])
        .filter((e) => e.workflowTaskStartedEventAttributes)
        .map((e) => Number(e.eventId));
      const firstPastLimit = started.find((id) => id > 300);
      if (firstPastLimit !== undefined) expect(started.filter((id) => id > firstPastLimit)).toEqual([]);
      expect(history.events?.length ?? 0).toBeLessThan(300 + 2 * 100 + 20);
    }
    // One event stream across the chain: every transition once, in order.
    const lines = readFileSync(eventsPath(p.cwd, run.workflowId), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; iteration?: number });
    expect(lines.filter((e) => e.event === 'loop_start')).toHaveLength(1);
    expect(lines.filter((e) => e.event === 'loop_complete')).toHaveLength(1);
    const passes = lines.filter((e) => e.event === 'state_enter').map((e) => e.iteration);
    expect(passes).toHaveLength(TRANSITIONS);
    expect(passes.every((n, i) => n === Math.floor(i / 2) + 1)).toBe(true);
  }, 300_000); // CPU-bound: 2,000 spawned actions; on a loaded 2-core machine over 3 minutes
});

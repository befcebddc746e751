/**
 * History-level guarantees: runs replay deterministically from their recorded history, and long
 * runs continue as new with their state (captured values, counters, timeout) carried across.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { replayExecution } from '../../worker/replay-events.js';
import { eventsPath } from '../../host/run-files.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(closeTemporal);

describe('durability', () => {
  it('a recorded run (actions, LLM-free evaluation, backoff, capture) replays without non-determinism', async () => {
    const p = project();
    const def = definition({
      name: 'replayed',
      initial: 'count',
      backoff: 0.01,
      context: { limit: 3 },
      states: {
        count: {
          action: 'echo ${state.iteration}',
          capture: 'n',
          evaluate: { type: 'output_numeric', operator: 'ge', target: '${context.limit}' },
          on_yes: 'done',
          on_no: 'count',
        },
        done: { action: "echo 'reached ${captured.n.output}'", terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result).toMatchObject({ final_state: 'done', iterations: 3 });
    const { client } = await temporal();
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    const replayed = await replayExecution(history, run.workflowId);
    expect(replayed.error).toBeUndefined();
    expect(replayed.events).toEqual(run.events);
  });

  it('continues as new before the history limit, carrying captured values, counters and events', async () => {
    const p = project();
    const def = definition({
      name: 'long',
      initial: 'a',
      max_iterations: 60,
      states: {
        a: { action: 'echo ${state.iteration}', capture: 'last', on_yes: 'b' },
        b: { action: 'test ${state.iteration} -lt 60', on_yes: 'a', on_no: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, historyEventLimit: 100 });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done', iterations: 60, steps: 121 });
    expect(run.result.captured.last?.output).toBe('60');
    const { client } = await temporal();
    // Several runs share the workflow id: the chain continued as new.
    const runs = [];
    for await (const w of client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) runs.push(w.runId);
    expect(runs.length).toBeGreaterThan(2);
    // One event stream across the runs: one loop_start, one loop_complete, every state entered once per step.
    const lines = readFileSync(eventsPath(p.cwd, run.workflowId), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((e) => e.event === 'loop_start')).toHaveLength(1);
    expect(lines.filter((e) => e.event === 'loop_complete')).toHaveLength(1);
    expect(lines.filter((e) => e.event === 'state_enter')).toHaveLength(121);
  });
});

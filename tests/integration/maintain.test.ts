/**
 * Maintain mode on the real server: a loop that restarts after its terminal state runs until it
 * is stopped, continuing as new so that each history stays bounded, with one event stream.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsPath } from '../../host/run-files.js';
import { snapshotQuery } from '../../workflows/definitions.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(closeTemporal);

const CYCLES_BEFORE_STOP = 20;

describe('maintain mode on the real server', () => {
  it('restarts cycle after cycle across continue-as-new until cancelled', async () => {
    const p = project();
    const def = definition({
      name: 'keep-checking',
      description: 'check, idle, check again',
      initial: 'check',
      maintain: true,
      maintain_delay: 0.1,
      states: {
        check: { action: 'echo ${state.iteration}', capture: 'check', next: 'idle' },
        idle: { terminal: true, on_maintain: 'check' },
      },
    });
    const { client } = await temporal();
    const run = await runLoop(def, {
      cwd: p.cwd,
      historyEventLimit: 100,
      onStarted: async (workflowId) => {
        const handle = client.workflow.getHandle(workflowId);
        const deadline = Date.now() + 45_000;
        for (;;) {
          const snapshot = await handle.query(snapshotQuery).catch(() => undefined);
          if ((snapshot?.cycles ?? 0) >= CYCLES_BEFORE_STOP || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        await handle.cancel();
      },
    });
    expect(run.result.terminated_by).toBe('cancelled');
    expect(run.result.cycles).toBeGreaterThanOrEqual(CYCLES_BEFORE_STOP);
    // Each cycle is pass 1 again.
    expect(run.result.iterations).toBe(1);
    expect(run.result.captured.check?.output).toBe('1');
    const runs: string[] = [];
    for await (const w of client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) runs.push(w.runId);
    expect(runs.length).toBeGreaterThan(2);
    const lines = readFileSync(eventsPath(p.cwd, run.workflowId), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; cycle?: number });
    expect(lines.filter((e) => e.event === 'loop_start')).toHaveLength(1);
    expect(lines.filter((e) => e.event === 'loop_complete')).toHaveLength(1);
    const restarts = lines.filter((e) => e.event === 'maintain_restart').map((e) => e.cycle);
    expect(restarts).toEqual(Array.from({ length: run.result.cycles ?? 0 }, (_, i) => i + 1));
  });
});

/**
 * A run this release cannot replay (started by a "foreign" release: tests/fixtures/foreign-release)
 * does not wedge on a non-determinism error: `ll-loop resume` moves it onto this release — the old
 * execution terminated, the same workflow id continuing from the run's last snapshot, its events
 * numbered on, a `loop_upgraded` event saying so — and it finishes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resumeCommand } from '../../client/commands/resume.js';
import { createLoopWorker } from '../../worker/create-worker.js';
import { eventsPath } from '../../host/run-files.js';
import { LOOP_WORKFLOW_TYPE } from '../../workflows/definitions.js';
import { waitFor } from '../support/processes.js';
import { closeTemporal, definition, temporal } from './harness.js';

let savedAddress: string | undefined;
beforeAll(() => {
  savedAddress = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
});
afterAll(async () => {
  if (savedAddress === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = savedAddress;
  await closeTemporal();
});

describe('a run this release cannot replay', () => {
  it(
    'is moved onto this release by resume, continues from its last snapshot and finishes',
    { timeout: 120_000 },
    async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'll-loop-upgrade-'));
      mkdirSync(join(cwd, '.loops'));
      const def = definition({
        name: 'moved',
        initial: 'a',
        states: {
          a: { action: 'echo one', capture: 'a', next: 'b' },
          b: { action: 'touch started-b; sleep 1.5; echo two', capture: 'b', next: 'done' },
          done: { terminal: true },
        },
      });
      writeFileSync(
        join(cwd, 'foreign-bundle.js'),
        (
          await bundleWorkflowCode({
            workflowsPath: join(import.meta.dirname, '..', 'fixtures', 'foreign-release', 'workflows.ts'),
            logger: new DefaultLogger('WARN'),
          })
        ).code,
      );
      const { client, native } = await temporal();
      const id = `moved-${Date.now()}`;
      const taskQueue = `ll-loop-run.${id}`;
      // The foreign release runs `a`, starts `b`, and goes away (its worker stops) mid-action.
      const foreign = await createLoopWorker({
        connection: native,
        taskQueue,
        bundlePath: join(cwd, 'foreign-bundle.js'),
      });
      await foreign.worker.runUntil(async () => {
        await client.workflow.start(LOOP_WORKFLOW_TYPE, {
          workflowId: id,
          taskQueue,
          args: [{ definition: def, options: { cwd, searchAttributes: true } }],
          memo: { cwd, loop: def.name, build_id: 'foreign+000000000000' },
        });
        await waitFor('the foreign release to start state b', () => existsSync(join(cwd, 'started-b')));
      });
      await foreign.events.close();
      const before = readFileSync(eventsPath(cwd, id), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { seq: number; event: string });

      const out: string[] = [];
      const code = await resumeCommand({
        cwd,
        target: id,
        context: [],
        json: false,
        out: (t) => out.push(t),
        err: (t) => out.push(t),
      });
      expect(out.join('')).toContain(`moved ${id} onto this ll-loop`);
      expect(code).toBe(0);

      const executions: Array<{ status: string }> = [];
      for await (const w of client.workflow.list({ query: `WorkflowId = '${id}'` }))
        executions.push({ status: w.status.name });
      expect(executions.map((e) => e.status).sort()).toEqual(['COMPLETED', 'TERMINATED']);
      const events = readFileSync(eventsPath(cwd, id), 'utf8')
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as { seq: number; event: string; state?: string; from_build?: string; final_state?: string },
        );
      // One stream: what the foreign release emitted, then the move, then the rest; no number twice.
      expect(events.slice(0, before.length)).toEqual(before);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events[before.length]).toMatchObject({
        event: 'loop_upgraded',
        state: 'b',
        from_build: 'foreign+000000000000',
      });
      expect(events.at(-1)).toMatchObject({ event: 'loop_complete', final_state: 'done' });
      const result = (await client.workflow.getHandle(id).result()) as { captured: Record<string, { output: string }> };
      expect(result.captured.a?.output).toBe('one');
      expect(result.captured.b?.output).toBe('two');
    },
  );
});

/**
 * Workflows run on the worker's main thread (worker/create-worker.ts), where the SDK lifts its
 * deadlock detector unless it is set again: workflow code that never yields must still fail its
 * workflow task after WORKFLOW_DEADLOCK_TIMEOUT instead of holding the worker's thread forever.
 * The worker here is ll-loop's own (createLoopWorker) with a bundle of one spinning workflow, and
 * the timeout shortened to 1 s: what is tested is that the SDK reads the option at all, and each
 * second of the timeout is a second of this process's CPU, spent twice (the task is retried
 * while the test looks at the history).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { afterAll, expect, it } from 'vitest';
import { createLoopWorker, WORKFLOW_DEADLOCK_TIMEOUT } from '../../worker/create-worker.js';
import { FIXTURES, closeTemporal, temporal } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'll-deadlock-'));
afterAll(async () => {
  await closeTemporal();
  rmSync(dir, { recursive: true, force: true });
});

it('workflow code that never yields fails its task after the deadlock timeout; the run stays open', async () => {
  expect(WORKFLOW_DEADLOCK_TIMEOUT).toBe('5s');
  const deadlockTimeout = '1s';
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(FIXTURES, 'spinning-workflow', 'workflows.ts'),
    logger: new DefaultLogger('ERROR'),
  });
  const bundlePath = join(dir, 'bundle.js');
  writeFileSync(bundlePath, code);
  const { client, native } = await temporal();
  const taskQueue = `deadlock-${randomUUID()}`;
  const { worker } = await createLoopWorker({ connection: native, taskQueue, bundlePath, deadlockTimeout });
  await worker.runUntil(async () => {
    const handle = await client.workflow.start('spinForever', { taskQueue, workflowId: `spin-${randomUUID()}` });
    try {
      let failure: string | undefined;
      while (failure === undefined) {
        const { events } = await handle.fetchHistory();
        failure =
          events?.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure
            ?.message ?? undefined;
        if (failure === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      expect(failure).toBe('Script execution timed out after 1000ms');
      // A deadlock fails the workflow task, not the run: it stays open for a fixed worker.
      expect((await handle.describe()).status.name).toBe('RUNNING');
    } finally {
      await handle.terminate('test over');
    }
  });
}, 60_000);

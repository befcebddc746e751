/**
 * The client's scope pre-check (precheckScopes) reads the lock workflow's memo, which the lock
 * workflow updates only when it handles a release. A run that has ended but whose release the
 * lock has not handled yet (a busy machine, or its worker away) must not make the next run fail
 * with "scope busy": the lock will have freed the scopes by the time it reads the next request.
 * A live holder is still refused. The lock workflow runs on a queue of its own, so its worker can
 * be stopped to hold the memo stale deterministically.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precheckScopes, ScopeBusyError } from '../../runs/scopes/scope-lock.js';
import { createLoopWorker } from '../../worker/create-worker.js';
import { LOOP_WORKFLOW_TYPE, type LoopWorkflowInput, type ScopeLockRequest } from '../../workflows/definitions.js';
import { SCOPE_QUEUE_MEMO_KEY } from '../../workflows/scope-lock-definitions.js';
import type { ScopeQueue } from '../../fsm/run/scope-queue.js';
import { waitFor } from '../support/processes.js';
import { closeTemporal, definition, project, temporal } from './harness.js';

const RUNS = `precheck-runs-${randomUUID()}`;
const LOCKS = `precheck-locks-${randomUUID()}`;
let runWorker: Worker;
let runRunning: Promise<void>;
let cwd: string;

beforeAll(async () => {
  cwd = project().cwd;
  const { native } = await temporal();
  ({ worker: runWorker } = await createLoopWorker({ connection: native, taskQueue: RUNS }));
  runRunning = runWorker.run();
});

afterAll(async () => {
  runWorker?.shutdown();
  await runRunning;
  await closeTemporal();
});

const lock: ScopeLockRequest = {
  domain: `precheck-${randomUUID()}`,
  workflowId: `ll-loop-lock.test-precheck-${randomUUID()}`,
  taskQueue: LOCKS,
  scopes: ['shared'],
  wait: false,
  recheckIntervalS: 2,
  lockWorkflow: { livenessIntervalS: 60, idleCloseS: 60 },
};

async function memoHolders(): Promise<string[]> {
  const { client } = await temporal();
  const d = await client.workflow
    .getHandle(lock.workflowId)
    .describe()
    .catch(() => undefined); // not started yet
  return ((d?.memo?.[SCOPE_QUEUE_MEMO_KEY] as ScopeQueue | undefined)?.holders ?? []).map((h) => h.run);
}

describe('the scope pre-check', () => {
  it('refuses while a live run holds the scope, and not once that run has ended though the lock has not yet handled its release', async () => {
    const { client, native } = await temporal();
    const { worker: lockWorker } = await createLoopWorker({ connection: native, taskQueue: LOCKS });
    const lockRunning = lockWorker.run();
    const input: LoopWorkflowInput = {
      definition: definition({
        name: 'holder',
        initial: 'work',
        states: {
          work: { action: 'while [ ! -f release-holder ]; do sleep 0.05; done', next: 'done' },
          done: { terminal: true },
        },
      }),
      options: { cwd, searchAttributes: true, localActivityMaxTimeoutS: 0 },
      lock,
    };
    const id = `holder-${randomUUID().slice(0, 8)}`;
    const handle = await client.workflow.start(LOOP_WORKFLOW_TYPE, {
      workflowId: id,
      taskQueue: RUNS,
      args: [input],
      memo: { cwd },
    });
    await waitFor('the lock memo to name the holder', async () => (await memoHolders()).includes(id), 30_000);
    const live = await precheckScopes(client, lock).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(live).toBeInstanceOf(ScopeBusyError);
    expect((live as ScopeBusyError).details.blockers.map((b) => b.run)).toEqual([id]);

    // The lock stops handling anything: the release the run sends as it ends stays unread.
    lockWorker.shutdown();
    await lockRunning;
    writeFileSync(join(cwd, 'release-holder'), '');
    await handle.result();
    expect(await memoHolders()).toEqual([id]);
    await expect(precheckScopes(client, lock)).resolves.toBeUndefined();
  }, 60_000);
});

/**
 * The worker's count of starts its scope lock has not answered yet follows each run by polling it,
 * which a busy machine can leave behind: a run that has ended may still be counted when the next
 * start of the checkout comes. reserveAfterLook (worker/socket/unanswered-starts.ts) looks at the
 * counted runs in the way before refusing: an ended run no longer counts, a run holding its
 * scopes is left to the precheck (which names it as the holder), and only a start still without
 * its answer refuses. Real runs on the dev server, a lock workflow on a queue of its own.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precheckScopes, ScopeBusyError } from '../../runs/scopes/scope-lock.js';
import { UnansweredStarts } from '../../worker/socket/unanswered-starts.js';
import { createLoopWorker } from '../../worker/create-worker.js';
import { LOOP_WORKFLOW_TYPE, type LoopWorkflowInput, type ScopeLockRequest } from '../../workflows/definitions.js';
import { SCOPE_LOCK_MEMO_KEY } from '../../workflows/scope-lock-definitions.js';
import { waitFor } from '../support/processes.js';
import { closeTemporal, definition, project, temporal } from './harness.js';

const QUEUE = `unanswered-${randomUUID()}`;
let worker: Worker;
let running: Promise<void>;
let cwd: string;

beforeAll(async () => {
  cwd = project().cwd;
  const { native } = await temporal();
  ({ worker } = await createLoopWorker({ connection: native, taskQueue: QUEUE }));
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await closeTemporal();
});

const lock: ScopeLockRequest = {
  domain: `unanswered-${randomUUID()}`,
  workflowId: `ll-loop-lock.test-unanswered-${randomUUID()}`,
  taskQueue: QUEUE,
  scopes: ['.'],
  wait: false,
  lockWorkflow: { livenessIntervalS: 60, idleCloseS: 60 },
};

/** Start a run holding `lock` whose one action waits for `file`; its id. */
async function startHolder(file: string): Promise<string> {
  const { client } = await temporal();
  const input: LoopWorkflowInput = {
    definition: definition({
      name: 'holder',
      initial: 'work',
      states: {
        work: { action: `while [ ! -f ${file} ]; do sleep 0.05; done`, next: 'done' },
        done: { terminal: true },
      },
    }),
    options: { cwd, searchAttributes: true, localActivityMaxTimeoutS: 0 },
    lock,
  };
  const id = `holder-${randomUUID().slice(0, 8)}`;
  await client.workflow.start(LOOP_WORKFLOW_TYPE, { workflowId: id, taskQueue: QUEUE, args: [input], memo: { cwd } });
  return id;
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as ScopeBusyError,
  );

describe('a start behind a counted one', () => {
  it('is refused while the counted run has no answer, goes once it has ended, and meets the precheck while it holds', async () => {
    const { client } = await temporal();
    const starts = new UnansweredStarts(client);

    // Counted, never started: no answer can have come.
    const unstarted = starts.reserve(`never-${randomUUID().slice(0, 8)}`, lock);
    const first = await refusal(starts.reserveAfterLook('next-1', lock));
    expect(first).toBeInstanceOf(ScopeBusyError);
    expect(first!.message).toMatch(/^scope \. is busy: queued for by never-/);
    unstarted.drop();

    // Counted while it holds its scopes: the look lets the precheck decide, which names the holder.
    const holder = await startHolder('release-1');
    starts.reserve(holder, lock);
    await waitFor(
      'the holder to hold its scopes',
      async () => (await client.workflow.getHandle(holder).describe()).memo?.[SCOPE_LOCK_MEMO_KEY] !== undefined,
      30_000,
    );
    const held = await refusal(starts.reserveAfterLook('next-2', lock, () => precheckScopes(client, lock)));
    expect(held).toBeInstanceOf(ScopeBusyError);
    expect(held!.message).toBe(`scope . is busy: held by ${holder} (scope .); nothing was started`);
    // The look took it out of the count: it is the lock's holder now.
    expect(starts.size).toBe(0);

    // Still counted after it ended (the poll left behind): the stale count alone would refuse...
    writeFileSync(join(cwd, 'release-1'), '');
    await client.workflow.getHandle(holder).result();
    const stale = starts.reserve(`${holder}-again`, lock, false);
    stale.rename(holder);
    expect(() => starts.reserve('next-3', lock)).toThrow(ScopeBusyError);
    // ...the look sees it ended: the start is counted, the ended run no longer.
    const next = await starts.reserveAfterLook('next-3', lock, () => precheckScopes(client, lock));
    expect(starts.size).toBe(1);
    next.drop();
    expect(starts.size).toBe(0);
  }, 90_000);
});

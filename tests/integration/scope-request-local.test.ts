/**
 * The `localScopeRequest` run rule on the real dev server: a run with it asks its scope lock with
 * a local activity, inside its first workflow task (no activity dispatched through the server, no
 * second workflow task before the lock can answer), and the lock behaves as before: the grant,
 * an overlapping run denied with ScopeBusy naming the holder, the release at the end. A run
 * without it (an older release's) asks with an activity, as it did.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LoopDefinition } from '../../fsm/schema.js';
import {
  LOOP_WORKFLOW_TYPE,
  type LoopRunResult,
  type LoopWorkflowInput,
  type ScopeLockRequest,
} from '../../workflows/definitions.js';
import { SCOPE_BUSY, scopeQueueQuery } from '../../workflows/scope-lock-definitions.js';
import { waitFor } from '../support/processes.js';
import { definition, temporal } from './harness.js';
import { useServedProject } from './served-project.js';

const QUEUE = `local-lock-${randomUUID()}`;
const served = useServedProject(QUEUE);
let cwd: string;
beforeAll(() => {
  cwd = served.cwd;
});

const short = () => randomUUID().slice(0, 8);

function lockIn(domain: string): ScopeLockRequest {
  return {
    domain,
    workflowId: `ll-loop-lock.test-${domain}`,
    taskQueue: QUEUE,
    scopes: ['.'],
    wait: false,
    recheckIntervalS: 2,
    lockWorkflow: { livenessIntervalS: 1, idleCloseS: 30 },
  };
}

/** One quick action; with `tag`, it waits until `release-<tag>` exists (at most 60 s). */
function loop(tag?: string): LoopDefinition {
  return definition({
    name: `local-lock-${tag ?? 'quick'}`,
    initial: 'work',
    states: {
      work: {
        action: tag
          ? `for i in $(seq 600); do [ -f release-${tag} ] && exit 0; sleep 0.1; done; exit 1`
          : 'echo locked',
        next: 'done',
      },
      done: { terminal: true },
    },
  });
}

async function start(def: LoopDefinition, lock: ScopeLockRequest, localScopeRequest: boolean): Promise<WorkflowHandle> {
  const { client } = await temporal();
  const input: LoopWorkflowInput = {
    definition: def,
    options: {
      cwd,
      searchAttributes: true,
      localActivityMaxTimeoutS: 0,
      ...(localScopeRequest ? { localScopeRequest } : {}),
    },
    lock,
  };
  return client.workflow.start(LOOP_WORKFLOW_TYPE, {
    workflowId: `${def.name}-${short()}`,
    taskQueue: QUEUE,
    args: [input],
    memo: { cwd },
  });
}

/** How the run asked its lock: activities scheduled named `requestScopes`, local activity markers. */
async function howItAsked(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  const firstTaskDone = events.findIndex((e) => e.workflowTaskCompletedEventAttributes);
  return {
    activities: events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'requestScopes')
      .length,
    // A local activity's marker follows the workflow task that ran it.
    markersAfterFirstTask: events
      .slice(firstTaskDone, firstTaskDone + 3)
      .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length,
  };
}

const holders = async (lock: ScopeLockRequest) => {
  const { client } = await temporal();
  // Until the first request started it there is no lock workflow to ask.
  const queue = await client.workflow
    .getHandle(lock.workflowId)
    .query(scopeQueueQuery)
    .catch(() => undefined);
  return queue?.holders.map((h) => h.run) ?? [];
};

describe('a run asks its scope lock', () => {
  it('with localScopeRequest a run asks its lock in its first workflow task: granted, denied, released', async () => {
    const lock = lockIn(`local-${short()}`);
    const tag = short();
    const holder = await start(loop(tag), lock, true);
    await waitFor(
      'the holder to hold the scope',
      async () => (await holders(lock)).includes(holder.workflowId),
      60_000,
      100,
    );

    // An overlapping run that would not wait is denied, naming the holder.
    const denied = await start(loop(), lock, true);
    const err = await denied.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe(SCOPE_BUSY);
    expect(cause.message).toContain(holder.workflowId);

    writeFileSync(join(cwd, `release-${tag}`), '');
    expect(((await holder.result()) as LoopRunResult).final_state).toBe('done');
    // Released at the end: the next run gets the scope.
    const next = await start(loop(), lock, true);
    expect(((await next.result()) as LoopRunResult).final_state).toBe('done');

    for (const run of [holder, denied, next])
      expect(await howItAsked(run)).toEqual({ activities: 0, markersAfterFirstTask: 1 });
  }, 120_000);

  it('without localScopeRequest (an older release) a run asks its lock with an activity', async () => {
    const lock = lockIn(`remote-${short()}`);
    const run = await start(loop(), lock, false);
    expect(((await run.result()) as LoopRunResult).final_state).toBe('done');
    expect(await howItAsked(run)).toEqual({ activities: 1, markersAfterFirstTask: 0 });
  }, 120_000);
});

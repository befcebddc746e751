/**
 * A worker of this release is not started while an open run on its queue was started by a
 * release it no longer serves (worker/hosting/retired-runs.ts, workflows/run-rules.ts): the run is
 * started through the Temporal client with no worker, as a 0.6.0 client started it (its memo's
 * version, its input without the rules retired since), and `ll-loop worker` on its queue is
 * refused, naming the run, its release and how to finish it; once the run is closed the same
 * worker starts and serves a run of a supported release to its end. The checkout's worker and a
 * pool's are refused the same way.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../errors/exit-codes.js';
import { checkoutAt, poolQueue } from '../../host/checkout.js';
import { openRetiredRuns, refuseRetiredRuns, RetiredRunsOpenError } from '../../worker/hosting/retired-runs.js';
import { LOOP_WORKFLOW_TYPE, type LoopWorkflowInput } from '../../workflows/definitions.js';
import { CURRENT_RUN_RULES, missingRetiredRules } from '../../workflows/run-rules.js';
import { runCliInProcess } from '../support/cli.js';
import { waitFor } from '../support/processes.js';
import { closeTemporal, definition, project, temporal } from './harness.js';

const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const name of ['TEMPORAL_ADDRESS', 'LL_STATE_DIR']) saved[name] = process.env[name];
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  process.env.LL_STATE_DIR = mkdtempSync(join(tmpdir(), 'll-retired-runs-state-'));
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await closeTemporal();
});

const loop = definition({
  name: 'quick',
  initial: 'work',
  states: { work: { action: 'true', on_yes: 'done', on_no: 'done' }, done: { terminal: true } },
});

describe('a worker start while an open run needs a retired rule', () => {
  it('is refused naming the run, its release and how to finish it; accepted once the run is closed', async () => {
    const { client } = await temporal();
    const { cwd } = project();
    const taskQueue = `it-retired-${randomUUID()}`;
    // An input as 0.6.0 recorded it: none of the rules of 0.7.0 on, which this release retired.
    const oldOptions = {
      cwd,
      searchAttributes: false,
      localActivityMaxTimeoutS: 0,
      closeAsOutcome: true,
      maskLoopEnv: true,
      checkAnswers: true,
      pauseOnRateLimit: true,
      stdoutSignals: true,
      childCheckout: true,
      steering: true,
      quickBursts: true,
      actionCallKeys: true,
    };
    expect(missingRetiredRules(oldOptions)).toEqual(['sharedBudget', 'shareRateLimits', 'itemScopes']);
    const oldId = `retired-${randomUUID().slice(0, 8)}`;
    const old = await client.workflow.start(LOOP_WORKFLOW_TYPE, {
      workflowId: oldId,
      taskQueue,
      args: [{ definition: loop, options: oldOptions } satisfies LoopWorkflowInput],
      memo: { cwd, loop: loop.name, version: '0.6.0', build_id: '0.6.0+abcdef012345' },
    });
    // A run of a supported release on the same queue is not in the way.
    const currentId = `current-${randomUUID().slice(0, 8)}`;
    await client.workflow.start(LOOP_WORKFLOW_TYPE, {
      workflowId: currentId,
      taskQueue,
      args: [{ definition: loop, options: { cwd, localActivityMaxTimeoutS: 0, ...CURRENT_RUN_RULES } }],
      memo: { cwd, loop: loop.name, version: '0.8.1', build_id: '0.8.1+abcdef012345' },
    });
    // Visibility lists a run a moment after its start.
    const listed = async (): Promise<number> =>
      (await client.workflow.count(`TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`)).count;
    await waitFor('both runs in visibility', async () => (await listed()) === 2);

    const refused = await runCliInProcess(['worker', '--task-queue', taskQueue], { cwd });
    expect(refused.code, refused.stderr).toBe(EXIT.usage);
    expect(refused.stderr).toContain(`${oldId} (started by ll-loop 0.6.0, queue ${taskQueue})`);
    expect(refused.stderr).toContain(`npx ll-loop@0.6.0 resume ${oldId}`);
    expect(refused.stderr).toContain(`ll-loop stop ${oldId}`);
    expect(refused.stderr).toContain('serves runs of ll-loop 0.7.0 and later');
    expect(refused.stderr).not.toContain(currentId);
    // Neither run was touched: no worker polled the queue.
    expect((await old.describe()).status.name).toBe('RUNNING');
    expect((await client.workflow.getHandle(currentId).describe()).status.name).toBe('RUNNING');

    await old.terminate('finished by its own release');
    await waitFor('the old run closed in visibility', async () => (await listed()) === 1);
    expect(await openRetiredRuns(client, [taskQueue])).toEqual([]);
    // Accepted: the worker starts, serves the run of a supported release to its end, and exits.
    const served = await runCliInProcess(['worker', '--task-queue', taskQueue, '--until-closed', currentId], { cwd });
    expect(served.code, served.stdout + served.stderr).toBe(EXIT.ok);
    expect(served.stdout).toContain(`${currentId} closed`);
    expect((await client.workflow.getHandle(currentId).describe()).status.name).toBe('COMPLETED');
  });

  it("the checkout's worker and a pool's worker are refused too, and the checkout's claims nothing", async () => {
    const { client } = await temporal();
    const { cwd } = project();
    mkdirSync(join(cwd, '.loops'));
    const pool = `retired-${randomUUID().slice(0, 8)}`;
    const started: string[] = [];
    for (const taskQueue of [checkoutAt(cwd).queue, poolQueue(pool)]) {
      const id = `retired-${randomUUID().slice(0, 8)}`;
      await client.workflow.start(LOOP_WORKFLOW_TYPE, {
        workflowId: id,
        taskQueue,
        args: [{ definition: loop, options: { cwd } } satisfies LoopWorkflowInput],
        memo: { cwd, version: '0.5.0' },
      });
      started.push(id);
    }
    try {
      await waitFor('both runs in visibility', async () => {
        const open = await openRetiredRuns(client, [checkoutAt(cwd).queue, poolQueue(pool)]);
        return open.length === 2;
      });
      const checkout = await runCliInProcess(['worker'], { cwd });
      expect(checkout.code, checkout.stderr).toBe(EXIT.usage);
      expect(checkout.stderr).toContain(`npx ll-loop@0.5.0 resume ${started[0]}`);
      expect(existsSync(join(cwd, '.loops', '.worker', 'worker.json'))).toBe(false);
      const pooled = await runCliInProcess(['worker', '--pool', pool], { cwd });
      expect(pooled.code, pooled.stderr).toBe(EXIT.usage);
      expect(pooled.stderr).toContain(`${started[1]} (started by ll-loop 0.5.0, queue ${poolQueue(pool)})`);
    } finally {
      for (const id of started) await client.workflow.getHandle(id).terminate('test over');
    }
  });

  it('a run whose memo names no release (before 0.3.0) is refused too; visibility unavailable lets the worker start', async () => {
    const { client } = await temporal();
    const { cwd } = project();
    const taskQueue = `it-retired-${randomUUID()}`;
    const id = `retired-${randomUUID().slice(0, 8)}`;
    const run = await client.workflow.start(LOOP_WORKFLOW_TYPE, {
      workflowId: id,
      taskQueue,
      args: [{ definition: loop, options: { cwd } } satisfies LoopWorkflowInput],
      memo: { cwd },
    });
    try {
      await waitFor('the run in visibility', async () => (await openRetiredRuns(client, [taskQueue])).length === 1);
      const err = await refuseRetiredRuns(client, [taskQueue], () => undefined).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RetiredRunsOpenError);
      expect((err as Error).message).toContain(`${id} (started by ll-loop older than 0.3.0, queue ${taskQueue})`);
      // A namespace the server does not have is no visibility trouble: the worker cannot serve at
      // all, and the error goes up to say so (tests/e2e/missing-namespace.test.ts).
      const lines: string[] = [];
      const elsewhere = new Client({
        connection: client.connection,
        namespace: `no-such-namespace-${randomUUID().slice(0, 8)}`,
      });
      await expect(refuseRetiredRuns(elsewhere, [taskQueue], (l) => lines.push(l))).rejects.toThrow(
        /Namespace not found/,
      );
      expect(lines).toEqual([]);
      // A server that cannot be asked (here: a connection already closed): the list fails, the
      // start goes on, and the log says why.
      const closed = await Connection.connect({ address: inject('temporalAddress') });
      await closed.close();
      await expect(
        refuseRetiredRuns(new Client({ connection: closed }), [taskQueue], (l) => lines.push(l)),
      ).resolves.toBeUndefined();
      expect(lines.join('\n')).toMatch(/could not list the open runs on .*; starting without checking/);
    } finally {
      await run.terminate('test over');
    }
  });
});

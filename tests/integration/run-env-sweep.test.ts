/**
 * A worker's sweep of run environment files (worker/run-env-sweep.ts) against the real server:
 * the file of a closed run goes, the file of an open run stays, and a file whose run the server
 * does not know goes only when it names this server and is older than the grace period; files of
 * another server, and old files that name none, are left for that server's workers.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runEnvDir, runEnvFor, serverKey, writeRunEnv } from '../../host/run-env.js';
import { scheduleEnvFile, writeScheduleEnv } from '../../host/schedule-env.js';
import { NOT_FOUND_GRACE_MS, sweepRunEnv, sweepScheduleEnv } from '../../worker/run-env-sweep.js';
import { LOOP_WORKFLOW_TYPE, type LoopWorkflowInput } from '../../workflows/definitions.js';
import { closeTemporal, definition, project, runLoop, temporal } from './harness.js';

afterAll(() => closeTemporal());

describe('sweepRunEnv', () => {
  it('removes the files of runs that are over on this server, and only those', async () => {
    const { client } = await temporal();
    const env = { LL_STATE_DIR: mkdtempSync(join(tmpdir(), 'll-run-env-sweep-')) };
    const server = serverKey(inject('temporalAddress'), 'default');
    const def = definition({ name: 'sweep', initial: 'done', states: { done: { terminal: true } } });
    const p = project();

    // A closed run (its file written before it closed).
    const closed = await runLoop(def, { cwd: p.cwd });
    writeRunEnv(closed.workflowId, { SECRET: 'x' }, { server }, env);
    utimesSync(join(runEnvDir(env), `${encodeURIComponent(closed.workflowId)}.json`), 1, 1);
    // An open run: started on a task queue no worker polls.
    const open = `sweep-open-${randomUUID().slice(0, 8)}`;
    const input: LoopWorkflowInput = { definition: def, options: { cwd: p.cwd, searchAttributes: false } };
    await client.workflow.start(LOOP_WORKFLOW_TYPE, {
      workflowId: open,
      taskQueue: `nobody-${randomUUID()}`,
      args: [input],
    });
    writeRunEnv(open, { SECRET: 'x' }, { server }, env);
    // Runs the server does not know: old and new for this server, old for another, old with no server.
    const old = (Date.now() - NOT_FOUND_GRACE_MS - 60_000) / 1000;
    const file = (id: string) => join(runEnvDir(env), `${encodeURIComponent(id)}.json`);
    writeRunEnv('gone-old', { SECRET: 'x' }, { server }, env);
    utimesSync(file('gone-old'), old, old);
    writeRunEnv('gone-new', { SECRET: 'x' }, { server }, env);
    writeRunEnv('elsewhere', { SECRET: 'x' }, { server: serverKey('127.0.0.1:1', 'default') }, env);
    utimesSync(file('elsewhere'), old, old);
    writeFileSync(file('older-release'), JSON.stringify({ SECRET: 'x' }));
    utimesSync(file('older-release'), old, old);

    const removed = await sweepRunEnv({ client, server, env });
    expect(removed.sort()).toEqual([closed.workflowId, 'gone-old'].sort());
    expect(existsSync(file(closed.workflowId))).toBe(false);
    expect(existsSync(file('gone-old'))).toBe(false);
    for (const kept of [open, 'gone-new', 'elsewhere', 'older-release'])
      expect(existsSync(file(kept)), kept).toBe(true);
    // Both formats still give the run its variables.
    expect(runEnvFor(open, env)?.SECRET).toBe('x');
    expect(runEnvFor('older-release', env)?.SECRET).toBe('x');
    await client.workflow.getHandle(open).terminate('test over');
  });

  it("removes a schedule's file once the schedule is gone from this server, and only then", async () => {
    const { client } = await temporal();
    const env = { LL_STATE_DIR: mkdtempSync(join(tmpdir(), 'll-schedule-env-sweep-')) };
    const server = serverKey(inject('temporalAddress'), 'default');
    const def = definition({ name: 'sweep', initial: 'done', states: { done: { terminal: true } } });
    const live = `ll-loop-sweep-live-${randomUUID().slice(0, 8)}`;
    const input: LoopWorkflowInput = { definition: def, options: { cwd: project().cwd, searchAttributes: false } };
    await client.schedule.create({
      scheduleId: live,
      spec: { intervals: [{ every: '24h' }] },
      action: {
        type: 'startWorkflow',
        workflowType: LOOP_WORKFLOW_TYPE,
        taskQueue: `nobody-${randomUUID()}`,
        args: [input],
      },
      state: { paused: true },
    });
    try {
      const old = (Date.now() - NOT_FOUND_GRACE_MS - 60_000) / 1000;
      const written = (id: string, on: string, age?: number): string => {
        writeScheduleEnv(id, on, { SECRET: 'x' }, env);
        const path = scheduleEnvFile(id, on, env);
        if (age !== undefined) utimesSync(path, age, age);
        return path;
      };
      const gone = written('ll-loop-sweep-gone', server, old);
      const fresh = written('ll-loop-sweep-fresh', server);
      const elsewhere = written('ll-loop-sweep-gone', serverKey('127.0.0.1:1', 'default'), old);
      const kept = written(live, server, old);
      expect(await sweepScheduleEnv({ client, server, env })).toEqual(['ll-loop-sweep-gone']);
      expect(existsSync(gone)).toBe(false);
      for (const path of [fresh, elsewhere, kept]) expect(existsSync(path), path).toBe(true);
    } finally {
      await client.schedule.getHandle(live).delete();
    }
  });
});

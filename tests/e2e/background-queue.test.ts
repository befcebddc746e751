/**
 * `ll-loop run --background` with the checkout's worker up, end to end with the built binary on
 * an embedded dev server of this file's own: the worker accepts the start, queues it on disk
 * (host/start-queue.ts) and answers at once; the run starts from the queue
 * (client/hosting/start-queue-runner.ts). A start that fails afterwards is shown by `status` and
 * `list --failed`, and its environment file is removed; one left queued by a worker that is gone
 * is started by the next worker.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServerWithProjects } from '../support/server-with-projects.js';
import { HELD_LOOP } from '../support/held-loop.js';
import { workerLog, workerPid } from '../support/worker-files.js';
import { killIfAlive, waitFor } from '../support/processes.js';
import { loadLoopFile } from '../../loader/load.js';
import { queueStart, startQueueDir } from '../../host/start-queue.js';
import { writeRunEnv } from '../../host/run-env.js';

const server = useServerWithProjects('ll-bg-queue-', { drop: ['LL_START_SOCKET', 'LL_EARLY_START'] });

const QUICK = `name: quick
description: one quick state
initial: a
states:
  a:
    action: "echo hello"
    next: done
  done:
    terminal: true
`;

const envFile = (id: string) => join(server.base, 'state', 'run-env', `${encodeURIComponent(id)}.json`);
const queued = (dir: string) => {
  const d = join(startQueueDir(dir), 'queued');
  return existsSync(d) ? readdirSync(d).filter((n) => n.endsWith('.json') && !n.startsWith('.')) : [];
};

describe('run --background through the checkout worker’s start queue', () => {
  it('is answered once queued (the run id, the same lines as a start), then the run starts from the queue and ends', async () => {
    const dir = server.project('queued', { quick: QUICK });
    // The worker up, as when a user starts a batch.
    const first = await server.cli(dir, ['run', 'quick']);
    expect(first.code, first.stderr).toBe(0);
    const bg = await server.cli(dir, ['run', 'quick', '--background', '--json']);
    expect(bg.code, bg.stderr).toBe(0);
    const out = JSON.parse(bg.stdout) as { instance_id: string; worker_pid: number };
    expect(out).toMatchObject({ worker_pid: workerPid(dir) });
    // Queued by the worker (the command printed its answer and exited), started from the queue.
    expect(workerLog(dir)).toContain(`${out.instance_id}: queued for ll-loop run --background`);
    // `status` of the id waits for the start if it has not happened yet, then reports the run.
    const status = await server.cli(dir, ['status', out.instance_id, '--json']);
    expect(status.code, status.stderr).toBe(0);
    await waitFor(
      'the run to end',
      async () => /"final_state": "done"/.test((await server.cli(dir, ['status', out.instance_id, '--json'])).stdout),
      60_000,
      200,
    );
    expect(workerLog(dir)).toContain(`${out.instance_id}: started for ll-loop run --background`);
    expect(queued(dir)).toEqual([]);
    const human = await server.cli(dir, ['run', 'quick', '--background']);
    expect(human.code, human.stderr).toBe(0);
    const humanId = /^started (quick-\S+) in the background\n/.exec(human.stdout)?.[1];
    expect(humanId, human.stdout).toBeDefined();
    expect(workerLog(dir)).toContain(`${humanId}: queued for ll-loop run --background`);
    expect(human.stdout).toContain(`follow: ll-loop status ${humanId} --follow`);
  }, 120_000);

  it('a queued start that fails (its scope busy) is shown by status (exit 8) and list --failed, its environment file removed', async () => {
    const dir = server.project('failing', { held: HELD_LOOP, quick: QUICK });
    const holder = await server.cli(dir, ['run', 'held', '--background', '--json']);
    expect(holder.code, holder.stderr).toBe(0);
    const holderId = (JSON.parse(holder.stdout) as { instance_id: string }).instance_id;
    await waitFor(
      'the holder to hold its scope',
      async () => (await server.cli(dir, ['queue', 'list', '--json'])).stdout.includes(holderId),
      60_000,
      250,
    );
    // The worker is up now: the second start of the same loop is queued, and refused its scope when started.
    const second = await server.cli(dir, ['run', 'held', '--background', '--json']);
    expect(second.code, second.stderr).toBe(0);
    const id = (JSON.parse(second.stdout) as { instance_id: string }).instance_id;
    await waitFor('the queued start to fail', () => workerLog(dir).includes(`${id}: its queued start failed`), 60_000);
    const status = await server.cli(dir, ['status', id]);
    expect(status.code).toBe(8);
    expect(status.stderr).toContain(`run ${id} never started:`);
    expect(status.stderr).toMatch(/scope/);
    const failed = await server.cli(dir, ['list', '--failed', '--json']);
    expect(failed.code, failed.stderr).toBe(0);
    expect(JSON.parse(failed.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, loop: 'held', outcome: 'not started' })]),
    );
    expect(existsSync(envFile(id))).toBe(false);
    expect(queued(dir)).toEqual([]);
    writeFileSync(join(dir, 'held.go'), '');
  }, 120_000);

  it('a start left queued by a worker that is gone is started by the next worker', async () => {
    const dir = server.project('left', { quick: QUICK });
    const first = await server.cli(dir, ['run', 'quick']);
    expect(first.code, first.stderr).toBe(0);
    killIfAlive(workerPid(dir));
    await waitFor('the worker to be gone', () => workerPid(dir) === undefined || !isAlive(workerPid(dir)!));
    // What the worker had accepted and not started: its entry and the run's environment file.
    const loaded = loadLoopFile(join(dir, '.loops', 'quick.yaml'), {}, dir);
    const id = 'quick-left-behind';
    writeRunEnv(id, { ...server.env, LEFT: '1' }, { exclusive: true }, server.env);
    queueStart(dir, {
      instance_id: id,
      queued_at: new Date().toISOString(),
      definition: loaded.definition!,
      file: loaded.file,
      cwd: dir,
      data_context: [],
      lock: { none: true, wait: false },
    });
    // Any command brings the next worker up; it starts what is queued.
    const list = await server.cli(dir, ['list']);
    expect(list.code, list.stderr).toBe(0);
    const status = await server.cli(dir, ['status', id, '--json']);
    expect(status.code, status.stderr).toBe(0);
    await waitFor(
      'the run to end',
      async () => /"final_state": "done"/.test((await server.cli(dir, ['status', id, '--json'])).stdout),
      60_000,
      200,
    );
    expect(queued(dir)).toEqual([]);
  }, 120_000);
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

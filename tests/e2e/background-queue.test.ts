/**
 * `ll-loop run --background` with the checkout's worker up, end to end with the built binary on
 * an embedded dev server of this file's own: the worker accepts the start, queues it on disk
 * (host/start-queue.ts) and answers at once; the run starts from the queue
 * (worker/socket/start-queue-runner.ts). A start its scope lock refuses at once is the command's
 * error; one that fails afterwards is shown by `status` and `list --failed`, and its environment
 * file is removed; one left queued by a worker that is gone
 * is started by the next worker.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServerWithProjects } from '../support/server-with-projects.js';
import { HELD_LOOP } from '../support/held-loop.js';
import { BIN } from '../support/cli.js';
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

  it('a reader gone before the queued start is printed (run --background | head -0) is no crash', async () => {
    const dir = server.project('piped', { quick: QUICK });
    const first = await server.cli(dir, ['run', 'quick']);
    expect(first.code, first.stderr).toBe(0);
    const child = spawn(process.execPath, [BIN, 'run', 'quick', '--background'], {
      cwd: dir,
      env: server.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the command writes a line: its writes fail with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    await waitFor('its run to be queued', () => workerLog(dir).split('queued for ll-loop run --background').length > 1);
  }, 120_000);

  it('a --background start its scope lock refuses now is the command’s error (exit 8, the holder, the fix): nothing queued', async () => {
    const dir = server.project('busy', { held: HELD_LOOP });
    const holderId = await holding(dir);
    const queuedLines = () => workerLog(dir).split('queued for ll-loop run --background').length;
    const before = queuedLines();
    // The worker is up: the second start of the same loop reaches its queue, whose precheck refuses it.
    const second = await server.cli(dir, ['run', 'held', '--background']);
    expect(second.code, second.stdout).toBe(8);
    expect(second.stderr).toContain('scope');
    expect(second.stderr).toContain(holderId);
    expect(second.stderr).toMatch(/fix: .*--queue/);
    expect(queuedLines()).toBe(before);
    expect(queued(dir)).toEqual([]);
    writeFileSync(join(dir, 'held.go'), '');
  }, 120_000);

  it('starts of one scope asked at the same moment: one runs, every other is its command’s exit 8, none is said started and then denied', async () => {
    const dir = server.project('batch', { held: HELD_LOOP });
    const first = await server.cli(dir, ['run', 'held', '--background', '--no-lock', '--json']);
    expect(first.code, first.stderr).toBe(0);
    // The worker up; six starts at once all pass the lock's precheck (no holder yet).
    const starts = await Promise.all(
      Array.from({ length: 6 }, () => server.cli(dir, ['run', 'held', '--background', '--json'])),
    );
    const started = starts.filter((s) => s.code === 0);
    const refused = starts.filter((s) => s.code !== 0);
    expect(started.map((s) => s.stderr)).toHaveLength(1);
    for (const r of refused) {
      expect(r.code, r.stderr).toBe(8);
      expect(r.stderr).toMatch(/^error: scope .* is busy: .*nothing was started\nfix: .*--queue/);
    }
    const id = (JSON.parse(started[0]!.stdout) as { instance_id: string }).instance_id;
    await waitFor(
      'the one started to hold its scope',
      async () => (await server.cli(dir, ['queue', 'list', '--json'])).stdout.includes(id),
      60_000,
      250,
    );
    writeFileSync(join(dir, 'held.go'), '');
    await waitFor(
      'it to succeed',
      async () => /"final_state": "done"/.test((await server.cli(dir, ['status', id, '--json'])).stdout),
      60_000,
      250,
    );
  }, 120_000);

  it('a queued start the lock denies after the precheck is shown by status and list --failed, its environment file removed', async () => {
    const dir = server.project('failing', { held: HELD_LOOP });
    const holderId = await holding(dir);
    // The lock workflow gone (terminated by hand): the precheck finds no lock and lets the start
    // into the queue; the fresh lock, rebuilt from the open runs, denies it there.
    const queues = JSON.parse((await server.cli(dir, ['queue', 'list', '--json'])).stdout) as {
      lock_workflow_id: string;
      holders: { run: string }[];
    }[];
    const lockId = queues.find((q) => q.holders.some((h) => h.run === holderId))!.lock_workflow_id;
    const { Connection, Client } = await import('@temporalio/client');
    const connection = await Connection.connect({ address: `127.0.0.1:${server.port}` });
    try {
      await new Client({ connection }).workflow.getHandle(lockId).terminate('test: the lock vanished');
    } finally {
      await connection.close();
    }
    const second = await server.cli(dir, ['run', 'held', '--background', '--json']);
    expect(second.code, second.stderr).toBe(0);
    const id = (JSON.parse(second.stdout) as { instance_id: string }).instance_id;
    await waitFor(
      'the queued run to be denied its scope',
      async () => (await server.cli(dir, ['status', id])).stdout.includes('did not start'),
      60_000,
      250,
    );
    const status = await server.cli(dir, ['status', id]);
    expect(status.stdout).toContain(`run ${id} did not start: scope`);
    expect(status.stdout).toContain(holderId);
    const failed = await server.cli(dir, ['list', '--failed', '--json']);
    expect(failed.code, failed.stderr).toBe(0);
    expect((JSON.parse(failed.stdout) as { id: string; outcome: string }[]).filter((r) => r.id === id)).toEqual([
      expect.objectContaining({ id, loop: 'held', outcome: 'scope busy' }),
    ]);
    await waitFor('its environment file to go', () => !existsSync(envFile(id)), 60_000);
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

/** Starts `held` in the background and waits until it holds its scope; its run id. */
async function holding(dir: string): Promise<string> {
  const holder = await server.cli(dir, ['run', 'held', '--background', '--json']);
  expect(holder.code, holder.stderr).toBe(0);
  const holderId = (JSON.parse(holder.stdout) as { instance_id: string }).instance_id;
  await waitFor(
    'the holder to hold its scope',
    async () => (await server.cli(dir, ['queue', 'list', '--json'])).stdout.includes(holderId),
    60_000,
    250,
  );
  return holderId;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A SIGKILLed checkout worker's running action, end to end with the built binary on an embedded
 * dev server of this file's own: the worker that takes the checkout over fails the dead one's
 * action over at once (worker/fail-over.ts) instead of Temporal waiting out the action's 30 s
 * heartbeat timeout, and `list --running` never names the dead worker as serving the run.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { freePort, killIfAlive, liveProcesses, waitFor } from '../support/processes.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let port: number;
let connection: Connection | undefined;

const cli = (args: string[]) => runCliBinary(args, { cwd: dir, env });

function lines(file: string): string[] {
  const path = join(dir, file);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

function workerPid(): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, '.loops', '.worker', 'worker.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'll-loop-failover-'));
  mkdirSync(join(dir, '.loops'));
  return freePort().then(async (p) => {
    port = p;
    const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
    env = {
      ...rest,
      LL_TEMPORAL_PORT: String(port),
      LL_TEMPORAL_UI_PORT: String(await freePort()),
      LL_TEMPORAL_DATA_DIR: join(dir, '.loops', '.temporal'),
      NO_COLOR: '1',
    };
    const started = await cli(['server', 'start']);
    expect(started.code, started.stderr).toBe(0);
  });
});

afterAll(async () => {
  killIfAlive(workerPid());
  await connection?.close();
  await cli(['server', 'stop']);
});

describe('a worker killed during a long action', () => {
  it('the next worker runs the action again within seconds, and `list --running` never shows the dead pid', async () => {
    writeFileSync(
      join(dir, '.loops', 'held.yaml'),
      `name: held
initial: a
states:
  a:
    action: "echo start >> held-a.log; while [ ! -e held.go ]; do sleep 0.05; done; echo done"
    timeout: 3600
    next: b
  b:
    action: "echo b"
    terminal: true
`,
    );
    const started = await cli(['run', 'held', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const { instance_id: id, worker_pid: dead } = JSON.parse(started.stdout) as {
      instance_id: string;
      worker_pid: number;
    };
    await waitFor('state a to start', () => lines('held-a.log').length === 1);
    process.kill(dead, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor("the killed worker's action to end", () => liveProcesses('held.go') === 0, 10_000);
    // Each listing also revives the checkout's worker (as any command does).
    const servedBy: number[][] = [];
    await waitFor(
      'the action to run again on a new worker',
      async () => {
        const listed = await cli(['list', '--running', '--json']);
        expect(listed.code, listed.stderr).toBe(0);
        const run = (JSON.parse(listed.stdout) as Array<{ id: string; served_by: Array<{ pid?: number }> }>).find(
          (r) => r.id === id,
        );
        servedBy.push(run?.served_by.map((w) => w.pid ?? 0) ?? []);
        return lines('held-a.log').length === 2;
      },
      60_000,
      200,
    );
    expect(servedBy.flat()).not.toContain(dead);
    // Not the 30 s heartbeat timeout: the new worker failed the dead one's attempt over as it started.
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    const now = await cli(['list', '--running', '--json']);
    const served = (JSON.parse(now.stdout) as Array<{ id: string; served_by: Array<{ pid?: number }> }>)
      .find((r) => r.id === id)
      ?.served_by.map((w) => w.pid);
    expect(served).toEqual([workerPid()]);
    writeFileSync(join(dir, 'held.go'), '');
    connection ??= await Connection.connect({ address: `127.0.0.1:${port}` });
    const result = await new Client({ connection }).workflow.getHandle(id).result();
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'b' });
    expect(lines('held-a.log')).toHaveLength(2); // the killed attempt, and one retry
  }, 120_000);
});

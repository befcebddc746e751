/**
 * Outages of the embedded Temporal server, end to end with the built binary on an embedded dev
 * server of this file's own (free ports, its own data directory, a temporary project): the
 * checkout's worker restarts a SIGKILLed server by itself and the run finishes without any
 * command; `status` right after a restart answers; every command revives a dead server when the
 * worker cannot; the worker logs an outage in a line, not a flood of the SDK's retries.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { freePort, pidAlive, waitFor } from '../support/processes.js';

let dir: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
const stopped = new Set<number>();

const cli = (args: string[]) => runCliBinary(args, { cwd: dir, env });

function lines(file: string): string[] {
  const path = join(dir, file);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

const workerLog = (): string =>
  existsSync(join(dir, '.loops', '.worker', 'worker.log'))
    ? readFileSync(join(dir, '.loops', '.worker', 'worker.log'), 'utf8')
    : '';
const serverPid = (): number => Number(readFileSync(join(dataDir, 'server.pid'), 'utf8').trim());
const workerPid = (): number =>
  (JSON.parse(readFileSync(join(dir, '.loops', '.worker', 'worker.json'), 'utf8')) as { pid: number }).pid;

/** A new server answers: another pid in server.pid, alive, and its port open to `server status`. */
async function serverBack(after: number, what: string): Promise<number> {
  await waitFor(
    what,
    () => {
      try {
        const pid = serverPid();
        return pid !== after && pidAlive(pid);
      } catch {
        return false;
      }
    },
    45_000,
  );
  return serverPid();
}

/** SIGKILL the server this file's commands started (its pid is in the data dir). */
function killServer(): number {
  const pid = serverPid();
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** a → b (held until `<name>.go` exists) → c, each leaving a line per start. */
function held(name: string): string {
  return `name: ${name}
description: a, then b held until released, then c
initial: a
states:
  a:
    action: "echo run >> ${name}-a.log"
    next: b
  b:
    action: "echo start >> ${name}-b.log; while [ ! -e ${name}.go ]; do sleep 0.05; done"
    timeout: 3600
    next: c
  c:
    action: "echo done > ${name}-c.out"
    terminal: true
`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'll-loop-server-outage-'));
  mkdirSync(join(dir, '.loops'));
  dataDir = join(dir, '.loops', '.temporal');
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    LL_TEMPORAL_PORT: String(await freePort()),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    LL_TEMPORAL_DATA_DIR: dataDir,
    NO_COLOR: '1',
  };
  const started = await cli(['server', 'start']);
  expect(started.code, started.stderr).toBe(0);
});

afterAll(async () => {
  for (const pid of stopped) if (pidAlive(pid)) process.kill(pid, 'SIGCONT');
  try {
    const pid = workerPid();
    if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  } catch {
    // no worker was started
  }
  await cli(['server', 'stop']);
});

describe('the embedded server dies under a running loop', () => {
  it('the worker restarts it within seconds, `status` right after answers, the run finishes by itself, and the log has one line per outage', async () => {
    writeFileSync(join(dir, '.loops', 'held.yaml'), held('held'));
    const started = await cli(['run', 'held', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitFor('state b to start', () => lines('held-b.log').length === 1);

    // 1. SIGKILL: the worker restarts the server on its data, with no command run meanwhile.
    const killedAt = Date.now();
    const first = killServer();
    await serverBack(first, 'the worker to restart the server');
    await waitFor(
      'the worker to log the restart',
      () => workerLog().includes('restarted the embedded Temporal server'),
      10_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(30_000);

    // 2. `status` right after the restart: the run answers for itself.
    const status = await cli(['status', id]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('b (action running)');

    // 3. SIGKILL again and `status` at once: it (or the worker) restarts the server, then answers.
    const second = killServer();
    const right = await cli(['status', id]);
    expect(right.code, right.stderr).toBe(0);
    expect(right.stdout).toContain('b (action running)');
    await serverBack(second, 'the server to be back');

    // 4. The run finishes without any command; nothing ran twice.
    writeFileSync(join(dir, 'held.go'), '');
    await waitFor('the run to finish by itself', () => existsSync(join(dir, 'held-c.out')), 60_000);
    expect(lines('held-a.log')).toHaveLength(1);
    expect(lines('held-b.log')).toHaveLength(1);
    await waitFor(
      'the worker to log the finished run',
      () => workerLog().includes(`finished ${id}: terminal in state c`),
      30_000,
    );
    // The log line comes from the run's last step; the run closes after it has given its scope
    // back, and the next test starts a run on the same scope.
    await waitFor(
      'the run to close',
      async () =>
        (JSON.parse((await cli(['status', id, '--json'])).stdout) as { status: string }).status === 'completed',
      30_000,
    );

    // 5. One line when each outage the worker saw began and one when it ended, none of the SDK's
    // retry errors. It saw the first (it restarted the server itself); the second it sees only if
    // its 1 s watch looks before `status` has revived the server.
    const count = (re: RegExp) => (workerLog().match(re) ?? []).length;
    await waitFor(
      'each outage the worker saw to be logged as ended',
      () => count(/ of outage/g) === count(/does not answer/g),
      10_000,
    );
    const log = workerLog();
    const began = count(/does not answer/g);
    expect(began).toBeGreaterThanOrEqual(1);
    expect(began).toBeLessThanOrEqual(2);
    expect(log).not.toContain('tcp connect error');
    expect(log).not.toContain('retried');
  }, 180_000);

  it('a command revives the server when the worker cannot (here: stopped), `worker status` says the server is down meanwhile, and `status` waits for the worker after restarting it', async () => {
    writeFileSync(join(dir, '.loops', 'held2.yaml'), held('held2'));
    const started = await cli(['run', 'held2', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitFor('state b to start', () => lines('held2-b.log').length === 1);
    const worker = workerPid();
    process.kill(worker, 'SIGSTOP');
    stopped.add(worker);
    try {
      const killed = killServer();
      await waitFor('the port to close', async () => (await cli(['server', 'status'])).code !== 0, 10_000);
      const report = await cli(['worker', 'status', '--json']);
      expect(report.code, report.stderr).toBe(0);
      expect(JSON.parse(report.stdout)).toMatchObject({ running: true, server: { answering: false } });
      // Any command: `list` reads only .loops/, yet brings the server back in the background.
      const list = await cli(['list']);
      expect(list.code, list.stderr).toBe(0);
      await serverBack(killed, 'the command to revive the server');
      await waitFor('the server to answer', async () => (await cli(['server', 'status'])).code === 0, 30_000);

      // Killed again while the worker still cannot poll: `status` restarts the server and waits
      // for the worker, which resumes only once the new server is up.
      const again = killServer();
      const status = cli(['status', id]); // waited for below, while the test acts
      await serverBack(again, '`status` to restart the server');
      process.kill(worker, 'SIGCONT');
      stopped.delete(worker);
      const answered = await status;
      expect(answered.code, answered.stderr).toBe(0);
      expect(answered.stdout).toContain('b (action running)');
    } finally {
      if (stopped.delete(worker)) process.kill(worker, 'SIGCONT');
    }
    writeFileSync(join(dir, 'held2.go'), '');
    await waitFor('the run to finish by itself', () => existsSync(join(dir, 'held2-c.out')), 60_000);
    expect(lines('held2-b.log')).toHaveLength(1);
  }, 180_000);

  it('`server stop` is not undone by the worker', async () => {
    expect((await cli(['server', 'stop'])).stdout).toContain('stopped');
    await waitFor('the worker to note the deliberate stop', () => workerLog().includes('stopped on purpose'), 15_000);
    expect((await cli(['server', 'status'])).code).not.toBe(0);
    expect(existsSync(join(dataDir, 'server.pid'))).toBe(false);
  }, 60_000);
});

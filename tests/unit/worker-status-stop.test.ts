/**
 * `ll-loop worker status|stop` against real processes: a dummy worker (tests/support/
 * dummy-worker.ts) whose command line is an ll-loop worker's and which writes a WorkerRecord,
 * drains on SIGTERM or ignores it. No Temporal; HOME and XDG_CONFIG_HOME point into a temporary
 * directory, PATH holds no service manager.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { workerStatus, workerStop } from '../../client/commands/worker-status.js';
import type { ServiceContext } from '../../worker/service/context.js';
import { isWorkerCommandLine, workerState } from '../../worker/service/worker-control.js';
import { systemdUnitName } from '../../worker/service/systemd.js';
import { buildInfo } from '../../host/build-info.js';
import { hostId, workerRecordPath } from '../../host/checkout.js';
import { startDummyWorker, type DummyWorker } from '../support/dummy-worker.js';
import { pidAlive, waitFor } from '../support/processes.js';

const tmp = mkdtempSync(join(tmpdir(), 'll-worker-control-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));
let n = 0;

function setup() {
  const base = join(tmp, String(++n));
  const root = join(base, 'project');
  mkdirSync(join(root, '.loops'), { recursive: true });
  const env = { HOME: join(base, 'home'), XDG_CONFIG_HOME: join(base, 'config'), PATH: join(base, 'bin') };
  let out = '';
  let err = '';
  const ctx = (over: Partial<ServiceContext> = {}): ServiceContext => ({
    cwd: root,
    env,
    platform: 'linux',
    json: false,
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    ...over,
  });
  const output = () => {
    const text = { out, err };
    out = '';
    err = '';
    return text;
  };
  const json = async (run: (c: ServiceContext) => Promise<number>) => {
    const code = await run(ctx({ json: true }));
    return { code, report: JSON.parse(output().out) as Record<string, unknown> };
  };
  return { root, env, ctx, output, json, base };
}

async function dummy(
  root: string,
  env: NodeJS.ProcessEnv,
  opts: Parameters<typeof startDummyWorker>[2] = {},
  record: Parameters<typeof startDummyWorker>[1] = { host: hostId(env) },
): Promise<DummyWorker> {
  const d = await startDummyWorker(root, record, opts);
  cleanups.push(() => d.kill());
  return d;
}

describe('worker status', () => {
  it('reports no worker, exit 0, with running false', async () => {
    const s = setup();
    const { code, report } = await s.json(workerStatus);
    expect(code).toBe(0);
    expect(report).toMatchObject({
      root: s.root,
      running: false,
      state: 'none',
      worker: null,
      service: { kind: 'systemd', installed: false },
    });
    expect(await workerStatus(s.ctx())).toBe(0);
    expect(s.output().out).toContain('worker: not running (no worker record)');
  });

  it('reports a running worker: pid, host, queue, started_by, uptime, log, and whether its version is this one', async () => {
    const s = setup();
    const d = await dummy(
      s.root,
      s.env,
      {},
      { host: hostId(s.env), ...buildInfo(), started_by: 'service', queue: 'll-loop.checkout.h.abc' },
    );
    const { code, report } = await s.json(workerStatus);
    expect(code).toBe(0);
    expect(report).toMatchObject({
      running: true,
      state: 'running',
      same_version: true,
      same_build: true,
      log: join(s.root, '.loops', '.worker', 'worker.log'),
    });
    expect(report.worker).toMatchObject({
      pid: d.pid,
      host: hostId(s.env),
      queue: 'll-loop.checkout.h.abc',
      started_by: 'service',
      uptime_s: expect.any(Number) as unknown,
    });
    await workerStatus(s.ctx());
    const { out } = s.output();
    expect(out).toContain(`worker: running: pid ${d.pid}`);
    expect(out).toContain(`: this ll-loop`);
    expect(out).toContain('service: not installed');
  });

  it('does not call a worker whose Temporal server is down all well', async () => {
    const s = setup();
    const d = await dummy(s.root, s.env); // its record names 127.0.0.1:0, where nothing answers
    const { report } = await s.json(workerStatus);
    expect(report).toMatchObject({ running: true, server: { address: '127.0.0.1:0', answering: false } });
    await workerStatus(s.ctx());
    const { out } = s.output();
    expect(out).toContain(`worker: running: pid ${d.pid}, but its Temporal server does not answer: nothing runs`);
    expect(out).toContain('server 127.0.0.1:0: NOT ANSWERING');
  });

  it('says when the worker runs another version, and when a service file is installed', async () => {
    const s = setup();
    await dummy(s.root, s.env);
    const unit = join(s.env.XDG_CONFIG_HOME, 'systemd', 'user', systemdUnitName(s.root));
    mkdirSync(join(unit, '..'), { recursive: true });
    writeFileSync(unit, '[Service]\n');
    const { report } = await s.json(workerStatus);
    expect(report).toMatchObject({
      running: true,
      same_version: false,
      same_build: false,
      service: { installed: true, file: unit },
    });
    await workerStatus(s.ctx());
    expect(s.output().out).toContain(
      `version 0.0.0-dummy (build 0.0.0-dummy+000000000000): this ll-loop is ${buildInfo().version}`,
    );
  });

  it('calls a record whose pid is gone stale', async () => {
    const s = setup();
    const done = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => done.on('exit', resolve));
    mkdirSync(join(s.root, '.loops', '.worker'), { recursive: true });
    writeFileSync(workerRecordPath(s.root), JSON.stringify({ pid: done.pid, host: hostId(s.env) }));
    const { report } = await s.json(workerStatus);
    expect(report).toMatchObject({ running: false, state: 'stale', record_pid: done.pid });
  });
});

describe('which processes count as a worker', () => {
  it('needs a `worker` argument and ll-loop on the command line', () => {
    expect(isWorkerCommandLine(['/usr/bin/node', '/opt/ll-loop/bin/ll-loop.js', 'worker'])).toBe(true);
    expect(isWorkerCommandLine(['node', '/p/node_modules/.bin/ll-loop', 'worker', '--pool', 'x'])).toBe(true);
    expect(isWorkerCommandLine(['sleep', '30'])).toBe(false);
    expect(isWorkerCommandLine(['/usr/bin/node', 'server.js', 'worker'])).toBe(false);
  });

  it('never signals a live process that is not a worker, even when the record names it', async () => {
    const s = setup();
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    cleanups.push(() => other.kill('SIGKILL'));
    mkdirSync(join(s.root, '.loops', '.worker'), { recursive: true });
    writeFileSync(workerRecordPath(s.root), JSON.stringify({ pid: other.pid, host: hostId(s.env) }));
    expect(workerState(s.root, s.env)).toMatchObject({
      kind: 'stale',
      why: expect.stringContaining('another program now (sleep 30)') as unknown,
    });
    expect(await workerStop(s.ctx({ json: false }), { waitS: 1, force: true })).toBe(0);
    expect(s.output().out).toContain('no worker running');
    expect(pidAlive(other.pid!)).toBe(true);
  });

  it('leaves a record of another host alone (LL_HOST_ID)', async () => {
    const s = setup();
    const d = await dummy(s.root, s.env, {}, { host: 'elsewhere' });
    expect(workerState(s.root, s.env)).toMatchObject({ kind: 'other-host' });
    await expect(workerStop(s.ctx(), { waitS: 1, force: true })).rejects.toThrow(/recorded on host elsewhere/);
    expect(pidAlive(d.pid)).toBe(true);
  });
});

describe('worker stop', () => {
  it('SIGTERMs the worker, waits for it to drain and exit, and reports', async () => {
    const s = setup();
    const d = await dummy(s.root, s.env, { drainMs: 500 });
    const { code, report } = await s.json((c) => workerStop(c, { waitS: 20, force: false }));
    expect(code).toBe(0);
    expect(report).toMatchObject({
      running: false,
      stopped: true,
      killed: false,
      pid: d.pid,
      service_installed: false,
    });
    expect(report.waited_s).toBeGreaterThanOrEqual(0.4);
    expect(pidAlive(d.pid)).toBe(false);
    expect(existsSync(workerRecordPath(s.root))).toBe(false);
    expect(await workerStop(s.ctx(), { waitS: 1, force: false })).toBe(0);
    expect(s.output().out).toBe(`no worker running for ${s.root}\n`);
  });

  it('gives up after --wait without --force (exit 5), the worker still asked to stop', async () => {
    const s = setup();
    const d = await dummy(s.root, s.env, { stubborn: true });
    await expect(workerStop(s.ctx(), { waitS: 0.5, force: false })).rejects.toMatchObject({
      exitCode: 5,
      message: expect.stringContaining(`worker pid ${d.pid} is still draining after 0.5 s`) as unknown,
    });
    expect(pidAlive(d.pid)).toBe(true);
  });

  it('--force SIGKILLs it after --wait and removes the record it could not remove', async () => {
    const s = setup();
    const d = await dummy(s.root, s.env, { stubborn: true });
    expect(await workerStop(s.ctx(), { waitS: 0.5, force: true })).toBe(0);
    await waitFor('the dummy to die', () => !pidAlive(d.pid), 5_000);
    expect(existsSync(workerRecordPath(s.root))).toBe(false);
    expect(s.output().out).toContain(`worker pid ${d.pid} did not stop within 0.5 s; killed it (SIGKILL)`);
  });

  it('says that an installed service starts the worker again', async () => {
    const s = setup();
    await dummy(s.root, s.env, { drainMs: 10 });
    const unit = join(s.env.XDG_CONFIG_HOME, 'systemd', 'user', systemdUnitName(s.root));
    mkdirSync(join(unit, '..'), { recursive: true });
    writeFileSync(unit, '[Service]\n');
    expect(await workerStop(s.ctx(), { waitS: 10, force: false })).toBe(0);
    expect(s.output().out).toContain(
      `note: a user service is installed (${unit}): it starts the worker again at the next login; ll-loop worker uninstall removes it, systemctl --user stop ${systemdUnitName(s.root)} stops it until then`,
    );
  });
});

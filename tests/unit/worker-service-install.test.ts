/**
 * `ll-loop worker install|uninstall` against a temporary HOME and XDG_CONFIG_HOME and a PATH
 * that holds no service manager, a failing one (a container: "Failed to connect to bus") or a fake
 * one that records what it is asked. The real user's configuration and service manager are never
 * touched: every path and program comes from the environment the test passes.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { workerInstall, workerUninstall } from '../../client/commands/worker-install.js';
import type { ServiceContext } from '../../worker/service/context.js';
import { launchdLabel } from '../../worker/service/launchd.js';
import { systemdUnitName } from '../../worker/service/systemd.js';
import { hostId } from '../../host/checkout.js';
import { runCliInProcess } from '../support/cli.js';
import { startDummyWorker, type DummyWorker } from '../support/dummy-worker.js';

const tmp = mkdtempSync(join(tmpdir(), 'll-service-install-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const dummies: DummyWorker[] = [];
afterEach(() => dummies.splice(0).forEach((d) => d.kill()));

/** A fresh checkout, home and bin directory; `systemctl` in bin is `mode`'s. */
function setup(mode: 'none' | 'bus' | 'fake' = 'none') {
  const base = join(tmp, String(++n));
  const root = join(base, 'project');
  const bin = join(base, 'bin');
  mkdirSync(join(root, '.loops'), { recursive: true });
  mkdirSync(bin, { recursive: true });
  const log = join(base, 'systemctl.log');
  if (mode !== 'none') {
    const body =
      mode === 'bus'
        ? 'echo "Failed to connect to bus: No medium found" >&2; exit 1'
        : 'case "$2" in is-active) echo active;; is-enabled) echo enabled;; esac; exit 0';
    writeFileSync(join(bin, 'systemctl'), `#!/bin/sh\necho "$*" >> '${log}'\n${body}\n`);
    chmodSync(join(bin, 'systemctl'), 0o755);
  }
  const env = {
    HOME: join(base, 'home'),
    XDG_CONFIG_HOME: join(base, 'config'),
    PATH: bin,
    TEMPORAL_ADDRESS: '127.0.0.1:7999',
    TEMPORAL_API_KEY: 'secret',
  };
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
  const unit = join(base, 'config', 'systemd', 'user', systemdUnitName(root));
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
  const output = () => {
    const text = { out, err };
    out = '';
    err = '';
    return text;
  };
  return { root, env, ctx, unit, calls, output, base };
}

describe('worker install on Linux', () => {
  it('writes the unit under XDG_CONFIG_HOME and, without systemctl, prints what to run', async () => {
    const s = setup('none');
    expect(await workerInstall(s.ctx(), { dryRun: false })).toBe(0);
    const text = readFileSync(s.unit, 'utf8');
    expect(text).toContain(`WorkingDirectory=${s.root}\n`);
    expect(text).toContain('Environment="TEMPORAL_ADDRESS=127.0.0.1:7999"');
    expect(text).not.toContain('secret');
    expect(existsSync(join(s.root, '.loops', '.worker'))).toBe(true);
    const { out } = s.output();
    expect(out).toContain(`wrote: ${s.unit}`);
    expect(out).toContain('not enabled or started: systemctl is not on PATH');
    expect(out).toContain('  systemctl --user daemon-reload\n');
    expect(out).toContain(`  systemctl --user enable ${systemdUnitName(s.root)}\n`);
    expect(out).toContain(`  systemctl --user start ${systemdUnitName(s.root)}\n`);
  });

  it('explains a systemctl that cannot reach a user manager (a container)', async () => {
    const s = setup('bus');
    expect(await workerInstall(s.ctx({ json: true }), { dryRun: false })).toBe(0);
    const report = JSON.parse(s.output().out) as Record<string, unknown>;
    expect(report).toMatchObject({ file: s.unit, changed: true, started: false });
    expect(report.why).toMatch(
      /cannot reach a user service manager \(Failed to connect to bus: No medium found\); usual in containers/,
    );
    expect(report.commands_to_run).toEqual([
      'systemctl --user daemon-reload',
      `systemctl --user enable ${systemdUnitName(s.root)}`,
      `systemctl --user start ${systemdUnitName(s.root)}`,
    ]);
    expect(s.calls()).toEqual(['--user show-environment']);
  });

  it('enables and starts it where systemctl works; a re-install is idempotent, a changed one restarts', async () => {
    const s = setup('fake');
    const name = systemdUnitName(s.root);
    expect(await workerInstall(s.ctx(), { dryRun: false })).toBe(0);
    expect(s.calls()).toEqual([
      '--user show-environment',
      '--user daemon-reload',
      `--user enable ${name}`,
      `--user start ${name}`,
    ]);
    expect(s.output().out).toContain(`the worker of ${s.root} runs now and from every login`);
    const first = readFileSync(s.unit, 'utf8');
    expect(await workerInstall(s.ctx(), { dryRun: false })).toBe(0);
    expect(readFileSync(s.unit, 'utf8')).toBe(first);
    expect(s.calls().slice(4)).toEqual([
      '--user show-environment',
      '--user daemon-reload',
      `--user enable ${name}`,
      `--user start ${name}`,
    ]);
    expect(s.output().out).toContain(`unchanged: ${s.unit}`);
    s.env.TEMPORAL_ADDRESS = '127.0.0.1:7888';
    expect(await workerInstall(s.ctx(), { dryRun: false })).toBe(0);
    expect(s.calls().slice(-1)).toEqual([`--user restart ${name}`]);
    expect(readFileSync(s.unit, 'utf8')).toContain('TEMPORAL_ADDRESS=127.0.0.1:7888');
  });

  it('only enables it while a worker started on demand serves the checkout', async () => {
    const s = setup('fake');
    dummies.push(await startDummyWorker(s.root, { host: hostId(s.env), started_by: 'on-demand' }));
    expect(await workerInstall(s.ctx(), { dryRun: false })).toBe(0);
    expect(s.calls()).toEqual([
      '--user show-environment',
      '--user daemon-reload',
      `--user enable ${systemdUnitName(s.root)}`,
    ]);
    expect(s.output().out).toMatch(/enabled, not started: worker pid \d+ \(on-demand\) serves/);
  });

  it('--dry-run prints the unit and writes nothing', async () => {
    const s = setup('fake');
    expect(await workerInstall(s.ctx(), { dryRun: true })).toBe(0);
    const { out, err } = s.output();
    expect(out).toContain('[Service]\n');
    expect(out).toContain(`WorkingDirectory=${s.root}\n`);
    expect(err).toContain(`# dry run: nothing written; install would write ${s.unit}`);
    expect(existsSync(s.unit)).toBe(false);
    expect(s.calls()).toEqual([]);
  });

  it('refuses a directory in no checkout', async () => {
    const s = setup('none');
    const outside = join(s.base, 'nowhere');
    mkdirSync(outside);
    await expect(workerInstall(s.ctx({ cwd: outside }), { dryRun: false })).rejects.toThrow(/is in no checkout/);
  });
});

describe('worker uninstall', () => {
  it('says so when nothing is installed', async () => {
    const s = setup('fake');
    expect(await workerUninstall(s.ctx())).toBe(0);
    expect(s.output().out).toBe(`no service installed for ${s.root} (no ${s.unit})\n`);
    expect(s.calls()).toEqual([]);
  });

  it('stops and disables the unit, then removes it', async () => {
    const s = setup('fake');
    await workerInstall(s.ctx(), { dryRun: false });
    const before = s.calls().length;
    s.output();
    expect(await workerUninstall(s.ctx())).toBe(0);
    const name = systemdUnitName(s.root);
    expect(s.calls().slice(before)).toEqual([
      '--user show-environment',
      `--user disable --now ${name}`,
      '--user daemon-reload',
      `--user reset-failed ${name}`,
    ]);
    expect(existsSync(s.unit)).toBe(false);
    expect(s.output().out).toBe(`stopped and disabled ${name}\nremoved ${s.unit}\n`);
  });

  it('removes the file where systemctl does not answer, and says what to run where it does', async () => {
    const s = setup('bus');
    await workerInstall(s.ctx(), { dryRun: false });
    s.output();
    expect(await workerUninstall(s.ctx())).toBe(0);
    expect(existsSync(s.unit)).toBe(false);
    expect(s.output().out).toContain(`systemctl --user disable --now ${systemdUnitName(s.root)}`);
  });
});

describe('worker install on macOS (launchd), from any platform', () => {
  it('writes the agent under ~/Library/LaunchAgents and, without launchctl, prints what to run', async () => {
    const s = setup('none');
    expect(await workerInstall(s.ctx({ platform: 'darwin' }), { dryRun: false })).toBe(0);
    const plist = join(s.env.HOME, 'Library', 'LaunchAgents', `${launchdLabel(s.root)}.plist`);
    expect(readFileSync(plist, 'utf8')).toContain(`<key>WorkingDirectory</key><string>${s.root}</string>`);
    const { out } = s.output();
    expect(out).toContain('launchctl is not on PATH');
    expect(out).toContain(`launchctl bootstrap gui/${process.getuid!()} ${plist}`);
    expect(await workerUninstall(s.ctx({ platform: 'darwin' }))).toBe(0);
    expect(existsSync(plist)).toBe(false);
  });

  it('knows no manager on other platforms', async () => {
    const s = setup('none');
    await expect(workerInstall(s.ctx({ platform: 'win32' }), { dryRun: false })).rejects.toThrow(
      /no user service manager on win32/,
    );
  });
});

describe('ll-loop worker <action> arguments', () => {
  it('keeps each flag to its action', async () => {
    const cwd = setup('none').root;
    expect(await runCliInProcess(['worker', 'status', '--dry-run'], { cwd })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('worker status takes no --dry-run') as unknown,
    });
    expect(await runCliInProcess(['worker', 'install', '--task-queue', 'q'], { cwd })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('worker install takes no --task-queue') as unknown,
    });
    expect(await runCliInProcess(['worker', '--force'], { cwd })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--force belongs to an action') as unknown,
    });
    expect(await runCliInProcess(['worker', 'stop', '--wait', 'soon'], { cwd })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--wait needs a number') as unknown,
    });
    expect(await runCliInProcess(['worker', 'stop', 'extra'], { cwd })).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('unexpected arguments: extra') as unknown,
    });
  });

  it('lists the actions in the help', async () => {
    expect((await runCliInProcess(['help', 'worker'], { cwd: tmp })).stdout).toContain(
      'll-loop worker install|status|stop|uninstall',
    );
  });
});

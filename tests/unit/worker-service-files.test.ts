/**
 * `ll-loop worker install`'s files: the systemd unit and the launchd plist it renders, the
 * environment it copies, and the escaping that keeps odd checkout paths one word. No service
 * manager is touched; `systemd-analyze verify` checks the unit where it is installed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copiedEnv, serviceDefinition } from '../../worker/service/definition.js';
import { launchdLabel, renderLaunchdPlist } from '../../worker/service/launchd.js';
import { findProgram } from '../../worker/service/programs.js';
import { environmentAssignment, execWord, renderSystemdUnit, systemdUnitName } from '../../worker/service/systemd.js';
import { shortHash } from '../../host/checkout.js';

const tmp = mkdtempSync(join(tmpdir(), 'll-service-files-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ENV = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/home/me',
  TEMPORAL_ADDRESS: 'temporal.example:7233',
  TEMPORAL_NAMESPACE: 'team',
  TEMPORAL_API_KEY: 'secret',
  LL_HOST_CLI: 'claude',
  LL_WORKER_STARTED_BY: 'on-demand',
  AWS_SECRET_ACCESS_KEY: 'x',
  LL_EMPTY: '',
};

describe('the environment a service gets', () => {
  it('copies PATH, where Temporal is and LL_* settings, never secrets, and marks the worker as started by the service', () => {
    expect(copiedEnv(ENV)).toEqual([
      ['LL_HOST_CLI', 'claude'],
      ['PATH', '/usr/local/bin:/usr/bin:/bin'],
      ['TEMPORAL_ADDRESS', 'temporal.example:7233'],
      ['TEMPORAL_NAMESPACE', 'team'],
      ['LL_WORKER_STARTED_BY', 'service'],
    ]);
  });
});

describe('the systemd user unit', () => {
  const def = serviceDefinition('/home/me/project', ENV, '/usr/bin/node', '/opt/ll-loop/bin/ll-loop.js');

  it('is named after the checkout and runs this node, this bin and `worker` in the checkout', () => {
    expect(systemdUnitName('/home/me/project')).toBe(`ll-loop-worker-${shortHash('/home/me/project')}.service`);
    const unit = renderSystemdUnit(def);
    expect(unit).toContain('ExecStart=/usr/bin/node /opt/ll-loop/bin/ll-loop.js worker\n');
    expect(unit).toContain('WorkingDirectory=/home/me/project\n');
    expect(unit).toContain('Environment="TEMPORAL_ADDRESS=temporal.example:7233"\n');
    expect(unit).toContain('Environment="LL_WORKER_STARTED_BY=service"\n');
    expect(unit).not.toContain('secret');
    expect(unit).toContain('Restart=on-failure\n');
    expect(unit).toContain('KillMode=mixed\n');
    expect(unit).toContain('StandardOutput=append:/home/me/project/.loops/.worker/worker.log\n');
    expect(unit).toContain('StandardError=append:/home/me/project/.loops/.worker/worker.log\n');
    expect(unit).toContain('WantedBy=default.target\n');
  });

  it('keeps a path with spaces, quotes, % and $ one word, taken literally', () => {
    expect(execWord('/a b/c"d\\e%f$g')).toBe('"/a b/c\\"d\\\\e%%f$$g"');
    expect(execWord('/plain/path.js')).toBe('/plain/path.js');
    expect(environmentAssignment('X', 'a "b" 100%')).toBe('"X=a \\"b\\" 100%%"');
    expect(() => renderSystemdUnit({ ...def, root: '/a\nb' })).toThrow(/line break/);
  });

  const analyze = findProgram('systemd-analyze', process.env);
  it.skipIf(!analyze)(
    'passes systemd-analyze verify, with an odd checkout path (skipped where systemd-analyze is absent)',
    () => {
      const root = join(tmp, 'my project 100%');
      mkdirSync(join(root, '.loops', '.worker'), { recursive: true });
      const file = join(tmp, systemdUnitName(root));
      writeFileSync(file, renderSystemdUnit(serviceDefinition(root, { ...ENV, LL_ODD: 'a "q" $HOME 100% \\ end' })));
      const r = spawnSync(analyze!, ['verify', file], { encoding: 'utf8', timeout: 30_000 });
      expect({ code: r.status, stderr: r.stderr.split('\n').filter((l) => l.includes(systemdUnitName(root))) }).toEqual(
        { code: 0, stderr: [] },
      );
    },
  );
});

describe('the launchd agent', () => {
  it('is labelled after the checkout, runs at load, restarts only after a failure and appends to the worker log', () => {
    const def = serviceDefinition('/Users/me/a & <b>', ENV, '/usr/local/bin/node', '/opt/ll-loop/bin/ll-loop.js');
    const plist = renderLaunchdPlist(def);
    expect(launchdLabel('/x')).toBe(`dev.ll-loop.worker.${shortHash('/x')}`);
    expect(plist).toContain(`<key>Label</key><string>${launchdLabel(def.root)}</string>`);
    expect(plist).toContain(
      '<string>/usr/local/bin/node</string>\n    <string>/opt/ll-loop/bin/ll-loop.js</string>\n    <string>worker</string>',
    );
    expect(plist).toContain('<key>WorkingDirectory</key><string>/Users/me/a &amp; &lt;b&gt;</string>');
    expect(plist).toContain('<key>LL_WORKER_STARTED_BY</key><string>service</string>');
    expect(plist).toContain('<key>RunAtLoad</key><true/>');
    expect(plist).toContain('<key>SuccessfulExit</key><false/>');
    expect(plist).toContain(
      '<key>StandardOutPath</key><string>/Users/me/a &amp; &lt;b&gt;/.loops/.worker/worker.log</string>',
    );
    expect(plist).not.toContain('secret');
    expect(() => renderLaunchdPlist({ ...def, root: '/a\u0001' })).toThrow(/control character/);
  });

  const plutil = findProgram('plutil', process.env);
  it.skipIf(!plutil)('passes plutil -lint (skipped where plutil is absent: macOS only)', () => {
    const file = join(tmp, 'agent.plist');
    writeFileSync(file, renderLaunchdPlist(serviceDefinition('/Users/me/p', ENV)));
    expect(spawnSync(plutil!, ['-lint', file], { encoding: 'utf8' }).status).toBe(0);
  });
});

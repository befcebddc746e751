/**
 * `ll-loop cluster setup` on a real cluster, as a new user meets it: a namespace that does not
 * exist, then setup, then the first run at once; a namespace an administrator created without
 * ll-loop's search attributes. Each test uses a namespace of its own. `--check`'s warning of a
 * server setting that costs speed, with the tier's server's dynamic config changed both ways.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, describe, expect, it } from 'vitest';
import { LATE_TIMER_MS } from '../../temporal/server-speed.js';
import { until } from '../support/processes.js';
import { loadCluster } from './support/cluster.js';
import { useClusterProject } from './support/project.js';
import { DYNAMIC_CONFIG } from './support/temporal-server.js';

const HELLO = `name: hello
description: one action
scope: ["hello"]
initial: say
states:
  say:
    action: "echo hi >> hello.log"
    next: done
  done:
    terminal: true
`;

const fresh = (what: string) => `ll-${what}-${randomBytes(3).toString('hex')}`;

describe('a namespace that does not exist', () => {
  const namespace = fresh('setup');
  const project = useClusterProject('ll-loop-cluster-setup-', { namespace });

  it('run says so in one line with the fix; --check reports it with the admin commands (exit 7)', async () => {
    project.loop('hello', HELLO);
    const run = await project.cli(['run', 'hello']);
    expect(run.code, run.stderr).toBe(7);
    expect(run.stderr).toBe(
      `error: Temporal namespace "${namespace}" does not exist on this server (ll-loop runs need it, with ll-loop's search attributes)\n` +
        `fix: run \`ll-loop cluster setup\` with the same TEMPORAL_* settings (it creates the namespace and registers ll-loop's search attributes, or prints the commands an administrator runs); see docs/temporal.md; or set TEMPORAL_NAMESPACE to a namespace that exists\n`,
    );
    const check = await project.cli(['cluster', 'setup', '--check']);
    expect(check.code).toBe(7);
    expect(check.stdout).toContain(`namespace ${namespace}: missing`);
    expect(check.stdout).toContain(`temporal operator namespace create --address ${process.env.TEMPORAL_ADDRESS}`);
    expect(check.stdout).toContain('temporal operator search-attribute create');
  });

  it('setup creates it with the retention asked for and registers the attributes; the first run works', async () => {
    const setup = await project.cli(['cluster', 'setup', '--retention', '3d']);
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    expect(setup.stdout).toContain(`created namespace ${namespace}`);
    expect(setup.stdout).toContain(
      'registered search attributes LoopName, LoopState, LoopStatus, LoopCategory, LoopCheckout',
    );
    expect(setup.stdout).toContain(`ready: ${process.env.TEMPORAL_ADDRESS} namespace ${namespace}`);
    const run = await project.cli(['run', 'hello']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('Loop completed: done');
    expect(project.lines('hello.log')).toEqual(['hi']);
  });

  it('again: nothing to change; --check --json: ready, with the retention', async () => {
    const again = await project.cli(['cluster', 'setup']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('(nothing to change)');
    const check = await project.cli(['cluster', 'setup', '--check', '--json']);
    expect(check.code).toBe(0);
    const report = JSON.parse(check.stdout) as { ready: boolean; retentionMs: number; missing: string[] };
    expect(report).toMatchObject({ ready: true, retentionMs: 3 * 86_400_000, missing: [] });
  });
});

describe('a namespace created without ll-loop’s search attributes', () => {
  const namespace = fresh('bare');
  const project = useClusterProject('ll-loop-cluster-bare-', { namespace });
  let connection: Connection | undefined;
  afterAll(async () => connection?.close());

  it('the first run registers them, waits until they are served, and works', async () => {
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(86_400_000),
    });
    project.loop('hello', HELLO);
    const check = await project.cli(['cluster', 'setup', '--check']);
    expect(check.code).toBe(7);
    expect(check.stdout).toContain('missing: LoopName, LoopState, LoopStatus, LoopCategory, LoopCheckout');
    // Reading commands work without them (their queries fall back), so only --check tells.
    const listed = await project.cli(['list', '--running']);
    expect(listed.code, listed.stderr).toBe(0);
    const run = await project.cli(['run', 'hello']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('Loop completed: done');
    expect(project.lines('hello.log')).toEqual(['hi']);
  });
});

describe('the server’s settings that cost speed', () => {
  const project = useClusterProject('ll-loop-cluster-speed-');
  // The server re-reads its dynamic config file every 10 s (its pollInterval): each wait below
  // lasts until a check sees the change, at most a minute.
  const dynamicConfig = () => join(loadCluster().dir, 'dynamicconfig.yaml');
  type Check = { ready: boolean; speed: { timerLateMs?: number; warnings: Array<{ setting: string }> } };
  const check = async () => {
    const r = await project.cli(['cluster', 'setup', '--check', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Check;
  };
  afterAll(async () => {
    // The next files run on the settings the tier's server starts with.
    writeFileSync(dynamicConfig(), DYNAMIC_CONFIG);
    await until(
      'the server to fire timers on time again',
      async () => ((await check()).speed.warnings.length === 0 ? true : undefined),
      60_000,
      500,
    );
  });

  it('with the tier’s settings: no warning, a 1 ms timer on time', async () => {
    const r = await project.cli(['cluster', 'setup', '--check']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^server: Temporal \d+\.\d+\.\d+; \d+ task queue partitions; a 1 ms timer fired \d+ ms late$/m,
    );
    expect(r.stderr).toBe('');
    const report = await check();
    expect(report.speed.warnings).toEqual([]);
    expect(report.speed.timerLateMs).toBeLessThanOrEqual(LATE_TIMER_MS);
  });

  it('without history.timerProcessorMaxTimeShift: a warning with the fix, and still ready (exit 0)', async () => {
    writeFileSync(dynamicConfig(), DYNAMIC_CONFIG.replace(/^history\.timerProcessorMaxTimeShift:\n(?: .*\n)+/m, ''));
    const report = await until(
      '--check to warn of late timers',
      async () => {
        const c = await check();
        return c.speed.warnings.length ? c : undefined;
      },
      60_000,
      500,
    );
    expect(report.ready).toBe(true);
    expect(report.speed.warnings.map((w) => w.setting)).toEqual(['history.timerProcessorMaxTimeShift']);
    expect(report.speed.timerLateMs).toBeGreaterThan(LATE_TIMER_MS);
    const text = await project.cli(['cluster', 'setup', '--check']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('ready: ');
    expect(text.stderr).toMatch(/^warning: a 1 ms timer fired \d+ ms late \(history\.timerProcessorMaxTimeShift\)/m);
    expect(text.stderr).toContain('fix: set history.timerProcessorMaxTimeShift to 10ms');
  });
});

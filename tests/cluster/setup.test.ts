/**
 * `ll-loop cluster setup` on a real cluster, as a new user meets it: a namespace that does not
 * exist, then setup, then the first run at once; a namespace an administrator created without
 * ll-loop's search attributes. Each test uses a namespace of its own.
 */
import { randomBytes } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, describe, expect, it } from 'vitest';
import { useClusterProject } from './support/project.js';

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

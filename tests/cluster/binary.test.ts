/**
 * The lifecycle on the cluster with the built binary and the checkout's worker, as a user runs
 * it: a background run followed by status, stopped, resumed and finished; its logs and history;
 * a failed run found by `list --failed` and resumed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/processes.js';
import { useClusterProject } from './support/project.js';

const project = useClusterProject('ll-loop-cluster-binary-');

describe('run, status, stop, resume, logs, history', () => {
  it('a background run is stopped mid-action, resumed, and finishes; logs and history show it', async () => {
    project.loop(
      'slow',
      `name: slow
description: a marker, then a wait that the test stops
scope: ["slow"]
initial: mark
states:
  mark:
    action: "echo marked >> slow-mark.log; echo mark-out"
    capture: mark
    next: wait
  wait:
    action: "echo start >> slow-wait.log; test -f slow-go || sleep 60; echo waited"
    next: done
  done:
    action: "echo '\${captured.mark.output}' > slow.out"
    terminal: true
`,
    );
    const started = await project.cli(['run', 'slow', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitFor('state wait to start', () => project.lines('slow-wait.log').length === 1, 90_000);
    const status = await project.cli(['status', id]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('wait');
    const stopped = await project.cli(['stop', id]);
    expect(stopped.code, stopped.stderr).toBe(0);
    writeFileSync(join(project.cwd, 'slow-go'), '');
    const resumed = await project.cli(['resume', id, '--json']);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(project.lines('slow.out')).toEqual(['mark-out']);
    // The completed marker action did not run again on resume.
    expect(project.lines('slow-mark.log')).toEqual(['marked']);
    const logs = await project.cli(['logs', id, '--state', 'mark']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain('mark-out');
    const history = await project.cli(['history', 'slow']);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain(id);
    expect(history.stdout).toContain(`${id}-r1`);
  }, 240_000);

  it('a failed run is listed by list --failed, and resume finishes it', async () => {
    project.loop(
      'gate',
      'name: gate\ndescription: fails until the gate opens\nscope: ["gate"]\ninitial: a\nstates:\n  a:\n    action: "test -f gate-open"\n    on_yes: b\n  b:\n    action: "echo through > gate.out"\n    terminal: true\n',
    );
    const failed = await project.cli(['run', 'gate', '--json']);
    expect(failed.code, failed.stderr).toBe(5);
    const id = (JSON.parse(failed.stdout) as { instance_id: string }).instance_id;
    const listed = await project.cli(['list', '--failed']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(id);
    writeFileSync(join(project.cwd, 'gate-open'), '');
    const resumed = await project.cli(['resume', id]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(project.lines('gate.out')).toEqual(['through']);
  }, 180_000);
});

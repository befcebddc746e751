/**
 * Handoffs through the built binary, on an embedded dev server of this file's own: a run paused on
 * a `CONTEXT_HANDOFF:` waits (its status says so, with the command that continues it) until
 * `ll-loop resume` continues it; a run handed off under `on_handoff: terminate` exits 6 and
 * `resume` runs the state again with the payload. The action stands in for an agent: a shell
 * action that hands off on its first call and writes `$LL_CONTINUATION` on the next.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOwnServerProject } from '../support/own-server-project.js';
import { waitFor } from '../support/processes.js';
import { waitForRunEvent } from '../support/run-events.js';

let cwd: string;

const project = useOwnServerProject('ll-loop-e2e-handoff-', { startServer: true });
const cli = (args: string[]) => project.cli(args);

function agentLoop(name: string, onHandoff: string): void {
  const action = `if [ -f ${name}.once ]; then printf '%s' "$LL_CONTINUATION" > ${name}.got; else touch ${name}.once; echo working; echo 'CONTEXT_HANDOFF: pick up at step 2'; fi`;
  writeFileSync(
    join(cwd, '.loops', `${name}.yaml`),
    `name: ${name}\ninitial: work\non_handoff: ${onHandoff}\nstates:\n  work:\n    action: ${JSON.stringify(action)}\n    next: done\n  done:\n    terminal: true\n`,
  );
}

beforeAll(() => {
  cwd = project.cwd;
});

describe('a handed-off run', () => {
  it('on_handoff: pause waits, status shows how to continue it, and resume continues it with the payload', async () => {
    agentLoop('paused', 'pause');
    const started = await cli(['run', 'paused', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitForRunEvent(cwd, id, 'handoff');
    let status = await cli(['status', id]);
    await waitFor(
      'the run to pause on its handoff',
      async () => (status = await cli(['status', id])).stdout.includes('paused on a handoff'),
      60_000,
    );
    expect(status.stdout).toContain('handed off:   pick up at step 2');
    expect(status.stdout).toContain(`continue it: ll-loop resume ${id}`);
    // `unpause` does not continue a handoff: it says which command does.
    const unpaused = await cli(['unpause', id]);
    expect(unpaused.code).toBe(1);
    expect(unpaused.stderr).toContain(`it waits on a handoff in state "work"`);
    expect(unpaused.stderr).toContain(`ll-loop resume ${id} continues it`);
    const resumed = await cli(['resume', id]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`${id} was paused on a handoff: state work runs again`);
    expect(resumed.stdout).toContain('Loop completed: done');
    expect(readFileSync(join(cwd, 'paused.got'), 'utf8')).toBe('pick up at step 2');
  }, 120_000);

  it('on_handoff: terminate exits 6; resume runs the state again with the payload', async () => {
    agentLoop('ended', 'terminate');
    const ran = await cli(['run', 'ended']);
    expect(ran.code, ran.stderr).toBe(6);
    expect(ran.stdout).toContain('⇄ handed off: pick up at step 2; ending the run');
    expect(ran.stdout).toContain('Loop handed off in state work');
    const history = await cli(['history', 'ended']);
    expect(history.stdout).toMatch(/handoff \(work\)/);
    const resumed = await cli(['resume', 'ended']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'ended.got'), 'utf8')).toBe('pick up at step 2');
  }, 120_000);
});

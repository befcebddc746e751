/**
 * `ll-loop pause`, `unpause`, `steer` and `rerun` through the built binary, on an embedded dev
 * server of this file's own: a background run is paused (status says by whom and since when),
 * steered to another state with a context value, and rerun from an earlier state; bad requests get
 * one-line errors with a fix and exit 1, and change nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOwnServerProject } from '../support/own-server-project.js';
import { waitFor } from '../support/processes.js';

let cwd: string;
const project = useOwnServerProject('ll-loop-e2e-steer-', { startServer: true });
const cli = (args: string[]) => project.cli(args, undefined, { LL_USER: 'ann' });
const ran = () => (existsSync(join(cwd, 'ran')) ? readFileSync(join(cwd, 'ran'), 'utf8').trim().split('\n') : []);

beforeAll(() => {
  cwd = project.cwd;
  writeFileSync(
    join(cwd, '.loops', 'gated.yaml'),
    [
      'name: gated',
      'initial: plan',
      'parameters:',
      '  rounds: { type: integer, default: 1 }',
      'context:',
      '  target: all',
      'states:',
      '  plan:',
      '    action: "while [ ! -f go ]; do sleep 0.05; done; echo plan >> ran"',
      '    next: build',
      '  build:',
      '    action: "echo build ${context.target} >> ran"',
      '    next: done',
      '  review:',
      '    action: "echo review ${context.target} >> ran"',
      '    next: done',
      '  done:',
      '    terminal: true',
      '',
    ].join('\n'),
  );
});

describe('pause, steer and rerun a run', () => {
  it('pauses a background run, steers it to another state with a context value, and reruns it from a state', async () => {
    const started = await cli(['run', 'gated', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;

    const paused = await cli(['pause', id]);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(new RegExp(`^paused ${id} \\(by ann@`));
    const again = await cli(['pause', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: cannot pause run .*already paused \(by ann@/);
    expect(again.stderr).toContain(`fix: ll-loop unpause ${id}`);

    // Paused while its action runs: the state line says it is pausing.
    expect((await cli(['status', id])).stdout).toContain('plan (action running; pausing)');
    writeFileSync(join(cwd, 'go'), '');
    let status = await cli(['status', id]);
    await waitFor(
      'the run to hold',
      async () => (status = await cli(['status', id])).stdout.includes('holding before build'),
      60_000,
    );
    expect(status.stdout).toMatch(/paused:\s+by ann@\S+ since .*, holding before build/);
    expect(status.stdout).toContain(`let it go on: ll-loop unpause ${id}`);
    expect(ran()).toEqual(['plan']);

    const typo = await cli(['steer', id, '--goto', 'reveiw']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('has no state "reveiw" (did you mean "review"?)');
    expect(typo.stderr).toContain('fix: ');
    expect(typo.stderr).not.toMatch(/\n\s+at /);
    const badKey = await cli(['steer', id, '--goto', 'review', '--context', 'tagret=docs']);
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toContain('has no context key "tagret" (did you mean "target"?)');
    const badType = await cli(['steer', id, '--goto', 'review', '--context', 'rounds=many']);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toContain('parameter "rounds" of loop "gated": expected an integer, got "many"');
    expect(badType.stderr).toContain('fix: give --context rounds an integer');

    const steered = await cli([
      'steer',
      id,
      '--goto',
      'review',
      '--context',
      'target=docs',
      '--note',
      'skip the build',
    ]);
    expect(steered.code, steered.stderr).toBe(0);
    expect(steered.stdout).toContain(`steered ${id} to review`);
    await waitFor('the run to end', () => ran().length === 2, 60_000);
    expect(ran()).toEqual(['plan', 'review docs']);
    await waitFor('the run to close', async () => (await cli(['status', id])).stdout.includes('completed'), 60_000);

    const history = await cli(['history', 'gated', id]);
    expect(history.stdout).toMatch(/paused .*by=ann@/);
    expect(history.stdout).toMatch(/steered .*to=review.*replaced=build/);

    const closed = await cli(['unpause', id]);
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(/^error: run .* has already finished/);

    // From another project on the same server, the loop's name does not reach this project's run;
    // its run id does, as for every command (the new run is this project's, in its directory).
    const elsewhere = mkdtempSync(join(tmpdir(), 'll-loop-e2e-steer-other-'));
    mkdirSync(join(elsewhere, '.loops'));
    const byName = await project.cli(['rerun', 'gated', '--from', 'plan'], elsewhere, { LL_USER: 'ann' });
    expect(byName.code).toBe(1);
    expect(byName.stderr).toContain(
      `error: no run of this project matches "gated"; runs of that name in other projects:`,
    );
    expect(byName.stderr).toContain(`fix: a loop name means the runs of the project you are in: pass the run id`);

    const badRerun = await project.cli(['rerun', id, '--from', 'plan', '--context', 'rounds=many'], elsewhere, {
      LL_USER: 'ann',
    });
    expect(badRerun.code).toBe(1);
    expect(badRerun.stderr).toContain(
      'error: --context: parameter "rounds" of loop "gated": expected an integer, got "many"',
    );
    const rerun = await project.cli(['rerun', id, '--from', 'plan', '--context', 'target=again'], elsewhere, {
      LL_USER: 'ann',
    });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(`rerunning ${id} from state plan#1 of 1`);
    expect(rerun.stdout).toContain(`as ${id}-f1`);
    expect(ran()).toEqual(['plan', 'review docs', 'plan', 'build again']);
    expect((await cli(['history', 'gated', id])).stdout).toContain(`rerun as ${id}-f1 (from ${id}@`);
    const forked = await cli(['history', 'gated', `${id}-f1`]);
    expect(forked.stdout.split('\n')[0]).toMatch(new RegExp(`^forked from ${id}@\\d+`));
    expect(forked.stdout).toMatch(/loop_fork .*forked_from=/);
  }, 240_000);

  it('refuses unknown runs, unknown states and bad --from with exit 1 and a fix', async () => {
    const unknown = await cli(['pause', 'no-such-run']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: no run matches "no-such-run"\nfix: /);
    const noGoto = await cli(['steer', 'gated']);
    expect(noGoto.code).toBe(1);
    expect(noGoto.stderr).toContain('steer needs --goto STATE');
    const badFrom = await cli(['rerun', 'gated', '--from', 'plan#0']);
    expect(badFrom.code).toBe(1);
    expect(badFrom.stderr).toContain('is not STATE or STATE#N');
    const never = await cli(['rerun', 'gated', '--from', 'build#3']);
    expect(never.code).toBe(1);
    expect(never.stderr).toMatch(/entered state "build" \d time/);
  }, 120_000);
});

/**
 * The environment a run's actions see, through the `ll-loop` binary, as a user meets it: the
 * checkout's worker is started by a command whose shell has a secret, and later runs from shells
 * without it must not see it (plain actions, quick actions run as a burst, sub-loops), nor find it
 * in their history; scheduled runs see the environment of the command that made the schedule, and
 * a run whose environment file is gone sees the worker's minimal environment, never all of it.
 * Values passed through files (above 32 KiB) do not outlive a worker killed mid-action.
 * Runs the built package (dist/).
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder, historyText } from '../support/leak-scan.js';
import { useOwnServerProject } from '../support/own-server-project.js';
import { liveProcesses, pidAlive, waitFor } from '../support/processes.js';

const SECRET = 's3cr3t-of-the-first-shell';
const project = useOwnServerProject('ll-loop-e2e-run-env-', { stateDir: true });
/** `ll-loop <args>` from a shell without TOKEN, unless `extra` sets it. */
const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  project.cli(args, undefined, { TOKEN: undefined, ...extra });
let connection: Connection | undefined;

async function client(): Promise<Client> {
  connection ??= await Connection.connect({ address: `127.0.0.1:${project.env.LL_TEMPORAL_PORT}` });
  return new Client({ connection });
}

const seen = (): string[] => {
  const path = join(project.cwd, 'seen.txt');
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n') : [];
};

/**
 * Each kind of action says what TOKEN is: two quick ones (a burst), a plain activity, a quick one
 * after it (run in its activity: the `burstsAfterActions` rule), a sub-loop's.
 */
const SAYS = (who: string) => `echo "${who} got=$\${TOKEN:-unset}" >> seen.txt; echo "got=$\${TOKEN:-unset}"`;

beforeAll(() => {
  const loops = join(project.cwd, '.loops');
  writeFileSync(
    join(loops, 'a.yaml'),
    'name: a\ndescription: starts the worker\ninitial: go\nstates:\n  go:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
  );
  writeFileSync(
    join(loops, 'b.yaml'),
    `name: b
description: every kind of action says what TOKEN is
initial: quick1
states:
  quick1:
    action: '${SAYS('quick1')}'
    timeout: 20
    capture: quick1
    next: quick2
  quick2:
    action: '${SAYS('quick2')}'
    timeout: 20
    capture: quick2
    next: plain
  plain:
    action: '${SAYS('plain')}'
    timeout: 300
    capture: plain
    next: quick3
  quick3:
    action: '${SAYS('quick3')}'
    timeout: 20
    next: sub
  sub:
    loop: child
    next: done
  done:
    terminal: true
`,
  );
  writeFileSync(
    join(loops, 'child.yaml'),
    `name: child\ndescription: a sub-loop\ninitial: say\nstates:\n  say:\n    action: '${SAYS('child')}'\n    timeout: 300\n    next: done\n  done:\n    terminal: true\n`,
  );
});

afterAll(async () => {
  await connection?.close();
});

describe("a run's actions see its command's environment, never the worker's", () => {
  it('the worker started with TOKEN set: a run from a shell without it sees got=unset everywhere, and its history holds no secret', async () => {
    const first = await cli(['run', 'a', '--json'], { TOKEN: SECRET });
    expect(first.code, first.stderr).toBe(0);

    rmSync(join(project.cwd, 'seen.txt'), { force: true });
    const r = await cli(['run', 'b', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { instance_id: string; captured: Record<string, { output: string }> };
    expect(seen()).toEqual([
      'quick1 got=unset',
      'quick2 got=unset',
      'plain got=unset',
      'quick3 got=unset',
      'child got=unset',
    ]);
    expect(result.captured.plain?.output).toBe('got=unset');
    expect(result.captured.quick2?.output).toBe('got=unset');
    const history = await historyText(await client(), result.instance_id);
    // The first quick actions ran as one burst (a local activity), the last in the plain action's
    // activity after it: paths of their own.
    expect(history).toContain('runBurst');
    expect(history).toContain('burst_after');
    expect(history).not.toContain(SECRET);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    for (const f of filesUnder(join(project.cwd, '.loops'))) expect(readFileSync(f).includes(SECRET), f).toBe(false);

    // The same worker gives a command's own TOKEN to every kind of action.
    rmSync(join(project.cwd, 'seen.txt'));
    const mine = await cli(['run', 'b', '--json'], { TOKEN: 'mine' });
    expect(mine.code, mine.stderr).toBe(0);
    expect(seen()).toEqual([
      'quick1 got=mine',
      'quick2 got=mine',
      'plain got=mine',
      'quick3 got=mine',
      'child got=mine',
    ]);
  }, 180_000);

  it("a scheduled run sees the environment of the command that made the schedule; without that file, the worker's minimal one", async () => {
    const made = await cli(['schedule', 'b', '--every', '24h', '--json'], { TOKEN: 'of-the-schedule' });
    expect(made.code, made.stderr).toBe(0);
    const envFiles = join(project.env.LL_STATE_DIR!, 'run-env', 'schedules');
    expect(readdirSync(envFiles)).toHaveLength(1);

    const scheduled = async (): Promise<string[]> => {
      rmSync(join(project.cwd, 'seen.txt'), { force: true });
      // The schedule skips a trigger while it still counts a run of its own as going (its overlap
      // policy): it learns that the last one ended a moment after the run has.
      const schedule = (await client()).schedule.getHandle('ll-loop-b');
      await waitFor(
        'the schedule to count no run going',
        async () => (await schedule.describe()).info.runningActions.length === 0,
      );
      const triggered = await cli(['schedule', 'trigger', 'b', '--json']);
      expect(triggered.code, triggered.stderr).toBe(0);
      const id = (JSON.parse(triggered.stdout) as { run?: string }).run;
      expect(id, triggered.stdout).toBeDefined();
      await (await client()).workflow.getHandle(id!).result();
      return seen();
    };
    expect(await scheduled()).toEqual([
      'quick1 got=of-the-schedule',
      'quick2 got=of-the-schedule',
      'plain got=of-the-schedule',
      'quick3 got=of-the-schedule',
      'child got=of-the-schedule',
    ]);

    // As on a machine without the file: the worker's minimal environment, not its TOKEN.
    for (const f of readdirSync(envFiles)) rmSync(join(envFiles, f));
    expect(await scheduled()).toEqual([
      'quick1 got=unset',
      'quick2 got=unset',
      'plain got=unset',
      'quick3 got=unset',
      'child got=unset',
    ]);
    const log = readFileSync(join(project.cwd, '.loops', '.worker', 'worker.log'), 'utf8');
    expect(log).toContain('has no environment file');

    writeFileSync(join(envFiles, 'left-by-hand.json'), '{}');
    const deleted = await cli(['schedule', 'delete', 'b']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(readdirSync(envFiles)).toEqual(['left-by-hand.json']);
    for (const f of filesUnder(join(project.cwd, '.loops'))) expect(readFileSync(f).includes(SECRET), f).toBe(false);
  }, 180_000);
});

describe('values passed through files', () => {
  it('the directory of a value above 32 KiB is swept after its worker was SIGKILLed mid-action', async () => {
    // A value of this test's own, so its file is told from any other in the temporary directory.
    const value = `env-sweep-${process.pid}-${Date.now()}-`.repeat(2048).slice(0, 40 * 1024);
    const tmp = tmpdir();
    const holding = (): string[] =>
      readdirSync(tmp)
        .filter((n) => n.startsWith('ll-loop-action-'))
        .filter((n) => {
          try {
            return readFileSync(join(tmp, n, 'v1'), 'utf8') === value;
          } catch {
            return false;
          }
        });
    writeFileSync(join(project.cwd, 'big.txt'), value);
    writeFileSync(
      join(project.cwd, '.loops', 'big.yaml'),
      `name: big
description: holds a large value until released
context:
  big: ""
initial: hold
states:
  hold:
    action: 'printf %s "\${context.big}" | wc -c >> big.log; test -e release || sleep 600.4242'
    timeout: 900
    next: done
  done:
    terminal: true
`,
    );
    const started = await cli(['run', 'big', '--context-file', 'big=big.txt', '--background', '--json'], {
      LL_HEARTBEAT_TIMEOUT_S: '8',
    });
    expect(started.code, started.stderr).toBe(0);
    const { instance_id: id, worker_pid: workerPid } = JSON.parse(started.stdout) as {
      instance_id: string;
      worker_pid: number;
    };
    await waitFor('the action to start', () => existsSync(join(project.cwd, 'big.log')));
    expect(holding()).toHaveLength(1);
    process.kill(workerPid, 'SIGKILL');
    await waitFor('the killed worker to be gone', () => !pidAlive(workerPid), 10_000);
    await waitFor("the killed worker's action to end", () => liveProcesses('sleep 600.4242') === 0, 15_000);
    writeFileSync(join(project.cwd, 'release'), '');
    // Any command brings a worker back; it runs the action again and the run finishes.
    const listed = await cli(['list']);
    expect(listed.code, listed.stderr).toBe(0);
    await (await client()).workflow.getHandle(id).result();
    expect(readFileSync(join(project.cwd, 'big.log'), 'utf8').trim().split(/\s+/)).toEqual(['40960', '40960']);
    expect(holding()).toEqual([]);
  }, 180_000);
});

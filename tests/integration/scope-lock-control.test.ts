/**
 * Scope locks and the commands that control runs, through `ll-loop` itself (in process, against
 * the test run's server): `stop --force` gives the terminated run's scopes back before it returns,
 * so a run started right after is granted them; `rerun` and `resume` of a stopped run take
 * `--queue` like `run` and wait for their turn instead of exit 8; a background start the lock
 * denies after the precheck let it through is reported by the command that started it (exit 8).
 * The checkout's worker (started on demand) serves the runs and the checkout's lock queue.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT } from '../../errors/exit-codes.js';
import type { LockQueueReport } from '../../runs/scopes/scope-queues.js';
import { main } from '../../client/cli.js';
import { runCliInProcess, type CliResult } from '../support/cli.js';
import { settle, waitFor } from '../support/processes.js';
import { closeTemporal, project, temporal } from './harness.js';

let saved: string | undefined;
let savedState: string | undefined;
beforeAll(() => {
  saved = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
  savedState = process.env.LL_STATE_DIR;
  process.env.LL_STATE_DIR = mkdtempSync(join(tmpdir(), 'll-scope-control-state-'));
});
afterAll(async () => {
  if (saved === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = saved;
  if (savedState === undefined) delete process.env.LL_STATE_DIR;
  else process.env.LL_STATE_DIR = savedState;
  await closeTemporal();
});

/** A project with loops that hold their scope until `release-<name>` exists. */
function checkout(): string {
  const { cwd } = project();
  mkdirSync(join(cwd, '.loops'));
  const loop = (name: string, scope: string) =>
    writeFileSync(
      join(cwd, '.loops', `${name}.yaml`),
      `name: ${name}\ninitial: work\n${scope}states:\n  work:\n    action: "for i in $(seq 600); do [ -f release-${name} ] && exit 0; sleep 0.1; done; exit 1"\n    on_yes: done\n    on_no: failed\n  done: { terminal: true }\n  failed: { terminal: true, failure: true }\n`,
    );
  loop('whole', '');
  loop('api', 'scope:\n  - src/api/\n');
  loop('src', 'scope: ["src"]\n');
  return cwd;
}

const cli = (cwd: string, ...args: string[]) => runCliInProcess(args, { cwd });

/** `ll-loop <args…>` in process, its stderr readable while it runs (a note said while it waits). */
function live(cwd: string, ...args: string[]): { done: Promise<CliResult>; stderr: () => string } {
  let stdout = '';
  let stderr = '';
  const done = main(args, {
    cwd,
    stdout: { write: (text: string) => void (stdout += text) },
    stderr: { write: (text: string) => void (stderr += text) },
  }).then((code) => ({ code, stdout, stderr }));
  return { done, stderr: () => stderr };
}
const release = (cwd: string, name: string) => writeFileSync(join(cwd, `release-${name}`), '');

/** The scope queue of this checkout (its domain ends with its path). */
async function queueOf(cwd: string): Promise<LockQueueReport | undefined> {
  const r = await cli(cwd, 'queue', 'list', '--json');
  expect(r.code, r.stderr).toBe(EXIT.ok);
  return (JSON.parse(r.stdout) as LockQueueReport[]).find((q) => q.domain.endsWith(`:${cwd}`));
}

async function holderId(cwd: string, loop: string): Promise<string> {
  return settle(
    async () => (await queueOf(cwd))?.holders.find((h) => h.run.startsWith(`${loop}-`))?.run ?? '',
    (id) => id !== '',
    20_000,
  );
}

async function backgroundRun(cwd: string, loop: string): Promise<string> {
  const started = await cli(cwd, 'run', loop, '--background', '--json');
  expect(started.code, started.stderr).toBe(EXIT.ok);
  return (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
}

describe('scope locks and run control', () => {
  it('stop --force gives the terminated run’s scopes back: a run started right after is granted them', async () => {
    const cwd = checkout();
    const id = await backgroundRun(cwd, 'whole');
    expect(await holderId(cwd, 'whole')).toBe(id);

    const stopped = await cli(cwd, 'stop', id, '--force');
    expect(stopped.code, stopped.stderr).toBe(EXIT.ok);

    // At once, well within the lock's liveness check (15 s): nobody holds `.` any more.
    release(cwd, 'api');
    const next = await cli(cwd, 'run', 'api', '--json');
    expect(next.stderr).not.toContain(id);
    expect(next.code, next.stderr).toBe(EXIT.ok);
  });

  it('rerun of a run that still holds its scopes: exit 8 naming --queue; with --queue it waits its turn', async () => {
    const cwd = checkout();
    const holding = cli(cwd, 'run', 'whole', '--json');
    const id = await holderId(cwd, 'whole');

    const busy = await cli(cwd, 'rerun', id, '--from', 'work');
    expect(busy.code).toBe(EXIT.scopeBusy);
    expect(busy.stderr).toContain(`held by ${id}`);
    expect(busy.stderr).toMatch(/fix: .*--queue/);

    const queued = live(cwd, 'rerun', id, '--from', 'work', '--queue', '--json');
    await waitFor(
      'the rerun to queue behind its run',
      async () => (await queueOf(cwd))?.waiters.some((w) => w.run === `${id}-f1`) === true,
      30_000,
    );
    // It says that it waits, and behind whom, as run --queue does.
    await waitFor('the note that it waits', () => queued.stderr().includes(`behind ${id} (--queue)`), 30_000);
    expect(queued.stderr()).toContain(`note: waiting for scope . behind ${id} (--queue)`);
    release(cwd, 'whole');
    const held = await holding;
    expect(held.code, `${held.stdout}${held.stderr}`).toBe(EXIT.ok);
    const rerun = await queued.done;
    expect(rerun.code, rerun.stderr).toBe(EXIT.ok);
    expect((JSON.parse(rerun.stdout) as { instance_id: string }).instance_id).toBe(`${id}-f1`);
  });

  it('resume of a stopped run whose scopes are busy: exit 8; with --queue-timeout it waits its turn', async () => {
    const cwd = checkout();
    const api = await backgroundRun(cwd, 'api');
    await holderId(cwd, 'api');
    const stopped = await cli(cwd, 'stop', api);
    expect(stopped.code, stopped.stderr).toBe(EXIT.ok);

    const src = await backgroundRun(cwd, 'src');
    await holderId(cwd, 'src');
    const busy = await cli(cwd, 'resume', api);
    expect(busy.code).toBe(EXIT.scopeBusy);
    expect(busy.stderr).toContain(`held by ${src}`);

    const queued = cli(cwd, 'resume', api, '--queue-timeout', '10m', '--json');
    await waitFor(
      'the resumed run to queue behind the holder',
      async () => (await queueOf(cwd))?.waiters.some((w) => w.run.startsWith(`${api}-r`)) === true,
      30_000,
    );
    release(cwd, 'src');
    release(cwd, 'api');
    const resumed = await queued;
    expect(resumed.code, resumed.stderr).toBe(EXIT.ok);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ resumed_from: api, final_state: 'done' });
  });

  it('resume of a run started with --queue waits as it did, and says so as run --queue does', async () => {
    const cwd = checkout();
    const started = await cli(cwd, 'run', 'api', '--queue', '--background', '--json');
    expect(started.code, started.stderr).toBe(EXIT.ok);
    const api = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await holderId(cwd, 'api');
    expect((await cli(cwd, 'stop', api)).code).toBe(EXIT.ok);

    const src = await backgroundRun(cwd, 'src');
    await holderId(cwd, 'src');
    const resumed = live(cwd, 'resume', api);
    await waitFor('the note that it waits', () => resumed.stderr().includes(`behind ${src} (--queue)`), 30_000);
    expect(resumed.stderr()).toContain(`note: waiting for scope src/api behind ${src} (--queue)`);
    release(cwd, 'src');
    release(cwd, 'api');
    const end = await resumed.done;
    expect(end.code, end.stderr).toBe(EXIT.ok);
    expect(end.stdout).toContain('Loop completed: done');
  });

  it('a run stopped while it waits for its scopes says so, before its first state (text and --json)', async () => {
    const cwd = checkout();
    const src = await backgroundRun(cwd, 'src');
    await holderId(cwd, 'src');
    const text = live(cwd, 'run', 'api', '--queue');
    await waitFor('the note that it waits', () => text.stderr().includes(`behind ${src} (--queue)`), 30_000);
    const json = live(cwd, 'run', 'api', '--queue', '--json');
    await waitFor('both runs to queue', async () => (await queueOf(cwd))?.waiters.length === 2, 30_000);
    for (const w of (await queueOf(cwd))!.waiters) expect((await cli(cwd, 'stop', w.run)).code).toBe(EXIT.ok);

    const shown = await text.done;
    expect(shown.code, shown.stderr).toBe(EXIT.cancelled);
    expect(shown.stdout).toMatch(/Loop stopped while waiting for its scope src\/api, before its first state \(\d/);
    expect(shown.stdout).not.toContain('in state work');
    const ended = await json.done;
    expect(ended.code, ended.stderr).toBe(EXIT.cancelled);
    expect(JSON.parse(ended.stdout)).toMatchObject({ terminated_by: 'cancelled', stopped_waiting_for: ['src/api'] });
    release(cwd, 'src');
  });

  it('run and resume --background of a run the lock denies after the precheck: exit 8 naming the scope, the holder and the fix', async () => {
    const cwd = checkout();
    const api = await backgroundRun(cwd, 'api');
    await holderId(cwd, 'api');
    expect((await cli(cwd, 'stop', api)).code).toBe(EXIT.ok);
    const whole = await backgroundRun(cwd, 'whole');
    await holderId(cwd, 'whole');
    // A lock workflow terminated by hand: the precheck finds no lock and lets the start through;
    // the fresh lock rebuilds its holders from the running runs and denies the newcomer.
    const { client } = await temporal();
    const dropLock = async () => {
      const lockId = (await queueOf(cwd))!.lock_workflow_id;
      await client.workflow.getHandle(lockId).terminate('test: the lock vanished');
    };

    await dropLock();
    const ran = await cli(cwd, 'run', 'api', '--background');
    expect(ran.code, ran.stdout).toBe(EXIT.scopeBusy);
    expect(ran.stdout).not.toContain('in the background');
    expect(ran.stderr).toMatch(new RegExp(`did not start: scope src/api is busy: held by ${whole} \\(scope \\.\\)`));
    expect(ran.stderr).toMatch(/fix: .*--queue/);

    // Afterwards the denied run says why it never began, wherever one looks.
    const denied = /run (\S+) did not start/.exec(ran.stderr)?.[1] ?? '';
    expect(denied).toMatch(/^api-/);
    const status = await cli(cwd, 'status', denied);
    expect(status.code, status.stderr).toBe(EXIT.ok);
    expect(status.stdout).toContain(`run ${denied} did not start: scope src/api is busy: held by ${whole}`);
    expect(status.stdout).toMatch(/fix: .*--queue/);
    expect(status.stdout).not.toContain('ended without a loop result');
    const history = await cli(cwd, 'history', 'api', denied);
    expect(history.code, history.stderr).toBe(EXIT.ok);
    expect(history.stdout).toContain(`run ${denied} did not start: scope src/api is busy`);
    expect(history.stdout).not.toContain('no events match');
    // The loop's runs list it as scope busy, as list --failed does, not as failed.
    const runs = await cli(cwd, 'history', 'api', '--json');
    expect(runs.code, runs.stderr).toBe(EXIT.ok);
    expect(
      (JSON.parse(runs.stdout) as Array<{ id: string; outcome: string }>).find((r) => r.id === denied),
    ).toMatchObject({ outcome: 'scope busy' });
    const failed = await cli(cwd, 'list', '--failed', '--json');
    expect(failed.code, failed.stderr).toBe(EXIT.ok);
    expect(
      (JSON.parse(failed.stdout) as Array<{ id: string; outcome: string }>).find((r) => r.id === denied),
    ).toMatchObject({ outcome: 'scope busy' });

    await waitFor(
      'the rebuilt lock to hold the holder',
      async () => (await queueOf(cwd))?.holders.length === 1,
      20_000,
    );
    await dropLock();
    const resumed = await cli(cwd, 'resume', api, '--background');
    expect(resumed.code, resumed.stdout).toBe(EXIT.scopeBusy);
    expect(resumed.stdout).not.toContain('in the background');
    expect(resumed.stderr).toContain(`run ${api}-r1 did not start: scope src/api is busy: held by ${whole}`);

    release(cwd, 'whole');
    await waitFor('the holder to end', async () => (await queueOf(cwd))?.holders.length === 0, 30_000);
  });
});

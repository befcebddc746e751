/**
 * A run waiting for a person, and a paused run, outlive SIGKILL of the checkout's worker AND of
 * the embedded server, end to end with the built binary on a server of this file's own: the
 * question and its deadline are the same after the restart (a durable timer, not restarted), an
 * answer given while both are down is applied once `ll-loop answer` has brought them back, the
 * deadline still fires for a run nobody answers, and a paused run is still paused (by whom).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { freePort, pidAlive, waitFor } from '../support/processes.js';
import { waitForRunEvent } from '../support/run-events.js';

let dir: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;

const cli = (args: string[]) => runCliBinary(args, { cwd: dir, env, timeoutMs: 120_000 });
const serverPid = (): number => Number(readFileSync(join(dataDir, 'server.pid'), 'utf8').trim());
const workerPid = (): number =>
  (JSON.parse(readFileSync(join(dir, '.loops', '.worker', 'worker.json'), 'utf8')) as { pid: number }).pid;

const ASK = `name: ask
description: waits for a person, then ships
scope: [ask]
initial: ask
states:
  ask:
    action_type: human
    prompt: "Ship it?"
    timeout: 3600
    on_yes: ship
    on_no: park
  ship:
    action: "echo shipped > shipped.out"
    terminal: true
  park:
    terminal: true
`;

/**
 * Nobody answers: the deadline sends it to late. A minute away: past the kills and the restart
 * below (5 s on an idle machine, checked before and after them), and not a longer wait.
 */
const DEADLINE = `name: deadline
description: waits for a person who never answers
scope: [deadline]
initial: ask
states:
  ask:
    action_type: human
    prompt: "Anyone?"
    timeout: 60
    on_yes: done
    on_timeout: late
  late:
    action: "echo late > late.out"
    terminal: true
  done:
    terminal: true
`;

/** a waits for the file go, then b. */
const HELD = `name: held
description: a held until go exists, then b
scope: [held]
initial: a
states:
  a:
    action: "while [ ! -e go ]; do sleep 0.05; done"
    timeout: 3600
    next: b
  b:
    action: "echo b > b.out"
    terminal: true
`;

async function started(loop: string): Promise<string> {
  const r = await cli(['run', loop, '--background', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { instance_id: string }).instance_id;
}

/** The run's own answer to `status --json` (`live`: phase, human, paused). */
async function status(id: string): Promise<Record<string, unknown>> {
  const r = await cli(['status', id, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return ((JSON.parse(r.stdout) as { live?: Record<string, unknown> }).live ?? {}) as Record<string, unknown>;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'll-loop-human-durability-'));
  mkdirSync(join(dir, '.loops'));
  dataDir = join(dir, '.loops', '.temporal');
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    LL_TEMPORAL_PORT: String(await freePort()),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    LL_TEMPORAL_DATA_DIR: dataDir,
    NO_COLOR: '1',
  };
  writeFileSync(join(dir, '.loops', 'ask.yaml'), ASK);
  writeFileSync(join(dir, '.loops', 'deadline.yaml'), DEADLINE);
  writeFileSync(join(dir, '.loops', 'held.yaml'), HELD);
  const server = await cli(['server', 'start']);
  expect(server.code, server.stderr).toBe(0);
});

afterAll(async () => {
  try {
    const pid = workerPid();
    if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  } catch {
    // no worker was started
  }
  await cli(['server', 'stop']);
});

describe('people in the loop survive the worker and the server', () => {
  it('a waiting run keeps its question and deadline, an answer given while both were down is applied, the deadline fires, a paused run stays paused', async () => {
    const asking = await started('ask');
    const timing = await started('deadline');
    const holding = await started('held');
    expect((await cli(['pause', holding])).code).toBe(0);
    writeFileSync(join(dir, 'go'), '');
    // Each look below asks a command; the runs' events say first when there is something to see.
    await waitForRunEvent(dir, holding, 'action_complete');
    await waitFor('the held run to hold', async () => ((await status(holding)).phase as string) === 'paused', 60_000);
    await waitForRunEvent(dir, asking, 'human_wait');
    await waitForRunEvent(dir, timing, 'human_wait');
    await waitFor('both runs to wait', async () => {
      const inbox = await cli(['inbox', '--json']);
      return inbox.stdout.includes(asking) && inbox.stdout.includes(timing);
    });
    const before = (await status(timing)).human as { deadline: string; since: string };
    expect(existsSync(join(dir, 'late.out')), 'the deadline passed before the kills: the machine is too slow').toBe(
      false,
    );

    // SIGKILL both: the worker first, so nothing restarts the server behind the test's back.
    const worker = workerPid();
    process.kill(worker, 'SIGKILL');
    await waitFor('the worker to die', () => !pidAlive(worker));
    const server = serverPid();
    process.kill(server, 'SIGKILL');
    await waitFor('the server to die', () => !pidAlive(server));

    // The answer brings server and worker back, and is applied.
    const answered = await cli(['answer', asking, 'yes']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toMatch(new RegExp(`^answered ${asking} in state ask: yes`));
    expect(serverPid()).not.toBe(server);
    await waitFor('the answered run to ship', () => existsSync(join(dir, 'shipped.out')), 60_000);

    // The same question, the same deadline: the durable timer was not restarted.
    expect(existsSync(join(dir, 'late.out')), 'the deadline passed before the restart: the machine is too slow').toBe(
      false,
    );
    const after = (await status(timing)).human as { deadline: string; since: string };
    expect(after).toMatchObject({ deadline: before.deadline, since: before.since });
    // The paused run is still paused, by the same person.
    const paused = await status(holding);
    expect(paused.phase).toBe('paused');
    expect(paused.paused).toMatchObject({ by: expect.stringMatching(/.+@.+/), holding: true });

    // Nobody answers the other: its deadline routes it on_timeout, once.
    await waitFor('the deadline to fire', () => existsSync(join(dir, 'late.out')), 200_000);
    const history = await cli(['history', 'deadline', timing, '--json']);
    expect(history.code, history.stderr).toBe(0);
    const { events } = JSON.parse(history.stdout) as { events: Array<{ event: string }> };
    expect(events.filter((e) => e.event === 'human_timeout')).toHaveLength(1);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(before.deadline));

    expect((await cli(['unpause', holding])).code).toBe(0);
    await waitFor('the unpaused run to finish', () => existsSync(join(dir, 'b.out')), 60_000);
  }, 480_000);
});

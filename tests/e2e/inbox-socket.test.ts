/**
 * `ll-loop inbox` asks the checkout's worker for the runs waiting for a person over the worker's
 * socket (runs/service/via-worker.ts, runs/transport/), end to end with the built binary on an embedded
 * dev server of this file's own. Through the socket the inbox is exactly the one the command lists
 * itself (`LL_START_SOCKET=0`): same JSON, same table, `list --waiting` and `--all-projects` too;
 * and with no worker, a worker of another build or a stale socket, the command lists it itself.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidAlive, waitFor } from '../support/processes.js';
import { startSocketFile, workerPid } from '../support/worker-files.js';
import { useServerWithProjects } from '../support/server-with-projects.js';
import { runCliInProcess } from '../support/cli.js';

const server = useServerWithProjects('ll-inbox-sock-', { drop: ['LL_START_SOCKET'], env: { TZ: 'UTC' } });

const ASK = `name: ask
description: waits for a person
initial: review
states:
  review:
    action_type: human
    prompt: "Ship it?"
    timeout: 3600
    on_yes: done
    on_no: done
  done:
    terminal: true
`;

const project = (name: string): string => server.project(name, { ask: ASK });

const cli = server.cli;
/**
 * The command listing the runs itself (`LL_START_SOCKET=0`): run in this process with the file's
 * environment, by the CLI's own `main`, instead of a process that loads the Temporal SDK for it
 * (the tests of this file run one after another).
 */
const direct = (dir: string, args: string[]) =>
  runCliInProcess(args, { cwd: dir, env: { ...server.env, LL_START_SOCKET: '0' } });

/** How many inboxes the checkout's worker in `dir` has answered (its log says each). */
function answeredByWorker(dir: string): number {
  const file = join(dir, '.loops', '.worker', 'worker.log');
  return existsSync(file)
    ? (readFileSync(file, 'utf8').match(/ll-loop inbox: \d+ waiting \(start socket\)/g) ?? []).length
    : 0;
}

const socketPath = startSocketFile;

/** A run of `ask` in `dir` (which starts the checkout's worker), waiting for its answer. */
async function waitingRun(dir: string): Promise<string> {
  const r = await cli(dir, ['run', 'ask', '--background', '--no-lock', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const id = (JSON.parse(r.stdout) as { instance_id: string }).instance_id;
  await waitFor(
    'the run in the inbox',
    async () => (await direct(dir, ['inbox', '--json'])).stdout.includes(id),
    60_000,
    250,
  );
  return id;
}

/** `inbox` in `dir` through the worker and by the command itself: both results, and whether the worker answered. */
async function both(dir: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const before = answeredByWorker(dir);
  const asked = await cli(dir, args, extraEnv);
  const byWorker = answeredByWorker(dir) - before;
  return { asked, byWorker, itself: await direct(dir, args) };
}

describe('ll-loop inbox through the checkout worker', () => {
  it('is answered by the worker exactly as the command lists it itself: JSON, table, list --waiting, --all-projects', async () => {
    const here = project('here');
    const other = project('other');
    const ids = [await waitingRun(here), await waitingRun(here)];
    const elsewhere = await waitingRun(other);

    const json = await both(here, ['inbox', '--json']);
    expect(json.asked.code, json.asked.stderr).toBe(0);
    expect(json.byWorker).toBe(1);
    expect(json.asked.stdout).toBe(json.itself.stdout);
    expect(json.asked.stderr).toBe(json.itself.stderr);
    const listed = (JSON.parse(json.asked.stdout) as Array<{ run: string; answer: string }>).map((w) => w.run);
    expect(listed.sort()).toEqual([...ids].sort());

    const table = await both(here, ['inbox']);
    expect(table.byWorker).toBe(1);
    expect(table.asked.stdout).toMatch(/RUN\s+STATE\s+WAITING SINCE\s+DEADLINE\s+QUESTION/);
    expect(table.asked.stdout).toBe(table.itself.stdout);

    const list = await both(here, ['list', '--waiting', '--json']);
    expect(list.byWorker).toBe(1);
    expect(list.asked.stdout).toBe(list.itself.stdout);

    // Every project's runs; another project's is answered from its directory.
    const all = await both(here, ['inbox', '--all-projects', '--json']);
    expect(all.byWorker).toBe(1);
    expect(all.asked.stdout).toBe(all.itself.stdout);
    const theirs = (JSON.parse(all.asked.stdout) as Array<{ run: string; answer: string }>).find(
      (w) => w.run === elsewhere,
    );
    expect(theirs?.answer).toBe(`cd ${other} && ll-loop answer ${elsewhere} yes | no`);
  }, 240_000);

  it('with a worker of another build, a stale socket or no worker, the command lists the runs itself', async () => {
    const dir = project('fallback');
    const id = await waitingRun(dir);
    const expected = (await direct(dir, ['inbox', '--json'])).stdout;
    expect(expected).toContain(id);

    // The worker dies and another process takes its pid's place in the record: nobody listens on the socket.
    const pid = workerPid(dir)!;
    process.kill(pid, 'SIGKILL');
    await waitFor('the worker to die', () => !pidAlive(pid));
    const listener = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    const record = join(dir, '.loops', '.worker', 'worker.json');
    writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), pid: listener.pid }));
    try {
      expect(existsSync(socketPath(dir))).toBe(true);
      const stale = await cli(dir, ['inbox', '--json']);
      expect(stale.code, stale.stderr).toBe(0);
      expect(stale.stdout).toBe(expected);
    } finally {
      listener.kill('SIGKILL');
    }
    rmSync(record, { force: true });
    const none = await cli(dir, ['inbox', '--json']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe(expected);

    // Last: a command of another build makes a worker of its build replace this one (and this
    // build's next command the reverse), a handover the steps above must not meet.
    const otherBuild = await both(dir, ['inbox', '--json'], { LL_CODE_ID: 'another-build' });
    expect(otherBuild.byWorker).toBe(0);
    expect(otherBuild.asked.code, otherBuild.asked.stderr).toBe(0);
    expect(otherBuild.asked.stdout).toBe(expected);
  }, 180_000);
});

/**
 * `ll-loop status`, `logs` and `history` ask the checkout's worker for their report over the
 * worker's socket (runs/service/via-worker.ts, worker/socket/requests.ts), end to end
 * with the built binary on an embedded dev server of this file's own: the command then loads no
 * Temporal SDK (and replays nothing), and prints what it prints when it asks Temporal itself
 * (`LL_START_SOCKET=0`) — an open run and a closed one, in words and as JSON — and an unknown run
 * is the same error with the same exit code, answered by the worker and not made again by the
 * command; `list --running` too. Each command's tests share one
 * checkout and worker.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';
import { sdkProbe } from '../support/sdk-probe.js';
import { useServerWithProjects } from '../support/server-with-projects.js';
import { HELD_LOOP } from '../support/held-loop.js';
import { workerLog } from '../support/worker-files.js';
import { waitFor } from '../support/processes.js';
import { askWorkerOnce } from '../../runs/transport/ask.js';
import { liveWorkerRecord } from '../../host/checkout-claim.js';
import { startSocketPath } from '../../host/worker-socket.js';

const server = useServerWithProjects('ll-status-sock-', { drop: ['LL_START_SOCKET'], env: { TZ: 'UTC' } });

/**
 * `ll-loop <args>` asking Temporal itself (`LL_START_SOCKET=0`), the reference the worker's answer
 * is compared with: run in this process, with the file's environment, by the CLI's own `main` (the
 * same code the built binary bundles). Spawned, each of these commands loaded the Temporal SDK
 * and replayed in a process of its own: ~1 s of CPU apiece, two dozen of them, on a 2-core machine
 * that runs three other test files meanwhile. The tests of this file run one after another.
 */
const itselfAsks = (dir: string, args: string[]) =>
  runCliInProcess(args, { cwd: dir, env: { ...server.env, LL_START_SOCKET: '0' } });

const LOOPS = {
  held: HELD_LOOP,
  talk: `name: talk
description: two states that write to both streams
initial: say
states:
  say:
    action: "echo out-of-say; echo err-of-say >&2"
    next: check
  check:
    action: "printf 'line 1\\nline 2\\n'; exit 3"
    on_yes: done
    on_no: done
    on_error: done
  done:
    terminal: true
`,
  quickheld: `name: quickheld
description: a quick action (on the quick lane) that waits for quickheld.go
initial: wait
states:
  wait:
    action: "touch quickheld.started; while [ ! -e quickheld.go ]; do sleep 0.05; done"
    timeout: 30
    next: done
  done:
    terminal: true
`,
  quick: `name: quick
description: one quick state
initial: a
states:
  a:
    action: "echo hello"
    next: done
  done:
    terminal: true
`,
};

let probed: ReturnType<typeof sdkProbe>;
beforeAll(() => {
  probed = sdkProbe(server.base, server.cli);
});

/**
 * The report with what moves between two asks blanked: elapsed times and the lock's age ("850ms",
 * "12s", "1m 5s", "2h 3m": a run's age passes a minute under load) with the padding after them.
 */
const normal = (text: string) =>
  text
    .replace(/(\d+h )?(\d+m )?\d+(\.\d+)?m?s\b */g, '<t> ')
    .replace(/\d+h \d+m\b */g, '<t> ')
    .replace(/"elapsed_ms": \d+/g, '"elapsed_ms": <t>');

/**
 * The checkout `name` with its worker up (a quick run started it), made on the first call and the
 * same checkout after: a describe's tests share one worker instead of starting one each.
 */
function sharedProject(name: string): () => Promise<string> {
  let made: Promise<string> | undefined;
  return () =>
    (made ??= (async () => {
      const dir = server.project(name, LOOPS);
      const first = await server.cli(dir, ['run', 'quick']); // starts the worker
      expect(first.code, first.stderr).toBe(0);
      return dir;
    })());
}

/**
 * `ll-loop <args>` through the checkout worker and then asking Temporal itself
 * (`LL_START_SOCKET=0`): the first is served by the worker (one more line in its log, as
 * `servedCount` counts them) and loads no SDK, the second is not served, and both print the same
 * (`same` blanks what moves between two asks). Returns the first's result for further checks.
 */
async function sameThroughWorker(
  dir: string,
  args: string[],
  servedCount: (dir: string) => number,
  same: (text: string) => string = (text) => text,
) {
  const before = servedCount(dir);
  const socket = await probed(dir, args);
  expect(socket.code, socket.stderr).toBe(0);
  expect(servedCount(dir), args.join(' ')).toBe(before + 1);
  expect(socket.sdk, args.join(' ')).toEqual([]);
  const itself = await itselfAsks(dir, args);
  expect(servedCount(dir)).toBe(before + 1);
  expect(same(socket.stdout), args.join(' ')).toBe(same(itself.stdout));
  expect(socket.stderr).toBe(itself.stderr);
  return socket;
}

const served = (dir: string) => (workerLog(dir).match(/ll-loop status \S+: \S+ \(start socket\)/g) ?? []).length;

describe('ll-loop status through the checkout worker', () => {
  const checkout = sharedProject('status');

  it('loads no Temporal SDK and prints what the command prints asking Temporal itself', async () => {
    const dir = await checkout();
    const held = await server.cli(dir, ['run', 'held', '--background', '--json']);
    expect(held.code, held.stderr).toBe(0);
    const heldId = (JSON.parse(held.stdout) as { instance_id: string }).instance_id;
    for (const args of [
      ['status', 'held'],
      ['status', heldId, '--json'],
      ['status', 'quick'],
      ['status', 'quick', '--json'],
    ]) {
      await sameThroughWorker(dir, args, served, normal);
    }
    expect((await server.cli(dir, ['status', 'held'])).stdout).toContain('state:        wait (action running)');
    writeFileSync(join(dir, 'held.go'), '');
  }, 180_000);

  it('a run in a long quick action, which cannot answer until it ends: where its state file says it is', async () => {
    const dir = await checkout();
    const held = await server.cli(dir, ['run', 'quickheld', '--background', '--json', '--no-lock']);
    expect(held.code, held.stderr).toBe(0);
    const id = (JSON.parse(held.stdout) as { instance_id: string }).instance_id;
    try {
      await waitFor('the quick action to run', () => existsSync(join(dir, 'quickheld.started')), 60_000);
      // The action holds the run's workflow task: the status query waits for it (or for the task's
      // heartbeat, 8 s in), and the report says where the run is from its worker's state file.
      const json = await server.cli(dir, ['status', id, '--json']);
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout) as {
        busy?: boolean;
        live?: { state: string };
        in_action?: { state: string; phase: string };
      };
      if (report.live === undefined) {
        expect(report.busy).toBe(true);
        expect(report.in_action).toMatchObject({ state: 'wait', phase: 'action' });
      } else expect(report.live.state).toBe('wait');
      const text = await server.cli(dir, ['status', id]);
      expect(text.stdout).toContain('state:        wait (action running)');
    } finally {
      writeFileSync(join(dir, 'quickheld.go'), '');
    }
  }, 180_000);

  it("an unknown run: the worker's report ends in the command's own error and exit code, made once", async () => {
    const dir = await checkout();
    const socket = await probed(dir, ['status', 'nosuch']);
    // The worker's answer is the error: the command does not make the report again (no SDK loaded).
    expect(socket.sdk).toEqual([]);
    const itself = await itselfAsks(dir, ['status', 'nosuch']);
    expect(socket.code).toBe(1);
    expect(socket.code).toBe(itself.code);
    expect(socket.stderr).toBe(itself.stderr);
    expect(workerLog(dir)).toContain('ll-loop status nosuch: the report failed');
  }, 180_000);

  it('a request for a directory outside the checkout is refused, and said so in the worker log', async () => {
    const dir = await checkout();
    const run = await server.cli(dir, ['run', 'quick', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const id = (JSON.parse(run.stdout) as { instance_id: string }).instance_id;
    const worker = liveWorkerRecord(dir)!;
    const ask = (cwd: string) =>
      askWorkerOnce<{ kind: string; why?: string }>(
        startSocketPath(dir),
        { kind: 'status', code_id: worker.code_id, address: worker.address, root: dir, cwd, target: id },
        15_000,
      );
    expect(await ask(dir)).toMatchObject({ kind: 'status' });
    expect(await ask(join(dir, 'sub'))).toMatchObject({ kind: 'status' });
    for (const cwd of [tmpdir(), join(dir, '..', 'here'), `${dir}-twin`, 'relative/dir']) {
      expect(await ask(cwd), cwd).toEqual({ kind: 'refused', why: `${cwd} is not in ${dir}` });
    }
    expect(workerLog(dir)).toContain(`a status request was refused (${tmpdir()} is not in ${dir})`);
  }, 180_000);
});

describe('ll-loop logs through the checkout worker', () => {
  const checkout = sharedProject('logs');
  const logsServed = (dir: string) =>
    (workerLog(dir).match(/ll-loop logs \S+: \d+ actions of \S+ \(start socket\)/g) ?? []).length;

  it('loads no Temporal SDK and prints what the command prints reading the run itself', async () => {
    const dir = await checkout();
    const talk = await server.cli(dir, ['run', 'talk', '--json']);
    expect(talk.code, talk.stderr).toBe(0);
    const held = await server.cli(dir, ['run', 'held', '--background', '--json']);
    expect(held.code, held.stderr).toBe(0);
    for (const args of [
      ['logs', 'talk'],
      ['logs', 'talk', '--json'],
      ['logs', 'talk', '--state', 'check'],
      ['logs', 'held'],
      ['logs', 'held', '--json'],
    ]) {
      await sameThroughWorker(dir, args, logsServed);
    }
    const text = (await server.cli(dir, ['logs', 'talk'])).stdout;
    expect(text).toContain('=== say · pass 1 · exit 0');
    expect(text).toContain('--- stdout:\nout-of-say\n--- stderr:\nerr-of-say\n');
    expect(text).toContain('=== check · pass 1 · exit 3');
    expect((await server.cli(dir, ['logs', 'held'])).stderr).toContain('is still running; ll-loop logs');
    writeFileSync(join(dir, 'held.go'), '');
  }, 180_000);

  it("an unknown run: the worker's report ends in the command's own error and exit code, made once", async () => {
    const dir = await checkout();
    const socket = await probed(dir, ['logs', 'nosuch']);
    // The worker's answer is the error: the command does not make the report again (no SDK loaded).
    expect(socket.sdk).toEqual([]);
    const itself = await itselfAsks(dir, ['logs', 'nosuch']);
    expect(socket.code).toBe(1);
    expect(socket.code).toBe(itself.code);
    expect(socket.stderr).toBe(itself.stderr);
    expect(workerLog(dir)).toContain('ll-loop logs nosuch: the report failed');
  }, 180_000);
});

describe('ll-loop history through the checkout worker', () => {
  const checkout = sharedProject('history');
  const historyServed = (dir: string) =>
    (workerLog(dir).match(/ll-loop history \S+: \d+ (runs|events of \S+) \(start socket\)/g) ?? []).length;

  it('loads no Temporal SDK and prints what the command prints reading the runs itself', async () => {
    const dir = await checkout();
    const talk = await server.cli(dir, ['run', 'talk', '--json']);
    expect(talk.code, talk.stderr).toBe(0);
    const id = (JSON.parse(talk.stdout) as { instance_id: string }).instance_id;
    const held = await server.cli(dir, ['run', 'held', '--background', '--json']);
    expect(held.code, held.stderr).toBe(0);
    for (const args of [
      ['history', 'talk'],
      ['history', 'talk', '--json'],
      ['history', 'talk', id],
      ['history', 'talk', id, '--json'],
      ['history', id, '--state', 'check'],
      ['history', 'talk', id, '--event', 'state_enter'],
      ['history', 'held'],
    ]) {
      await sameThroughWorker(dir, args, historyServed, normal);
    }
    expect((await server.cli(dir, ['history', 'talk', id])).stdout).toMatch(/state_enter +state=say/);
    writeFileSync(join(dir, 'held.go'), '');
    // --write rewrites this project's events file: the command does it itself.
    const before = historyServed(dir);
    const written = await server.cli(dir, ['history', 'talk', id, '--write']);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toContain(`wrote ${join(dir, '.loops', '.running')}`);
    expect(historyServed(dir)).toBe(before);
  }, 180_000);

  it("a name that is neither a loop nor a run: the worker's report ends in the command's own error, made once", async () => {
    const dir = await checkout();
    const socket = await probed(dir, ['history', 'nosuch']);
    expect(socket.sdk).toEqual([]);
    const itself = await itselfAsks(dir, ['history', 'nosuch']);
    expect(socket.code).toBe(1);
    expect(socket.code).toBe(itself.code);
    expect(socket.stderr).toBe(itself.stderr);
    expect(workerLog(dir)).toContain('ll-loop history nosuch: the report failed');
  }, 180_000);
});

describe('ll-loop list --running and queue list through the checkout worker', () => {
  const checkout = sharedProject('running');
  const runningServed = (dir: string) =>
    (
      workerLog(dir).match(
        /ll-loop (list --running( --all-projects)?: \d+ runs|queue list: \d+ locks) \(start socket\)/g,
      ) ?? []
    ).length;
  /** The workers' last polls and the locks' ages move between two listings. */
  const steady = (text: string) =>
    normal(text)
      .replace(/"last_poll": "[^"]*"/g, '"last_poll": <t>')
      .replace(/"(held|waited|waiting)_ms": \d+/g, '"$1_ms": <t>');

  it('loads no Temporal SDK and prints what the command prints listing the runs and locks itself', async () => {
    const dir = await checkout();
    const held = await server.cli(dir, ['run', 'held', '--background', '--json']);
    expect(held.code, held.stderr).toBe(0);
    const heldId = (JSON.parse(held.stdout) as { instance_id: string }).instance_id;
    await waitFor('the held run in its action', async () =>
      (await server.cli(dir, ['status', heldId])).stdout.includes('wait (action running)'),
    );
    for (const args of [
      ['list', '--running'],
      ['list', '--running', '--json'],
      ['list', '--running', '--all-projects'],
      ['queue', 'list'],
      ['queue', 'list', '--json'],
    ]) {
      const socket = await sameThroughWorker(dir, args, runningServed, steady);
      expect(socket.stdout, args.join(' ')).toContain(heldId);
    }
    const listed = JSON.parse((await server.cli(dir, ['list', '--running', '--json'])).stdout) as {
      id: string;
      state: string;
      worker: boolean;
      served_by: { pid?: number }[];
    }[];
    expect(listed).toEqual([
      expect.objectContaining({
        id: heldId,
        state: 'wait',
        worker: true,
        served_by: [expect.objectContaining({ pid: liveWorkerRecord(dir)!.pid })],
      }),
    ]);
    writeFileSync(join(dir, 'held.go'), '');
  }, 180_000);
});

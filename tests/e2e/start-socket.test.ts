/**
 * `ll-loop run` starts its run through the checkout worker's start socket when that worker is up
 * (runs/start/start-through-worker.ts, and the bin's early start before the CLI is loaded:
 * runs/start/early-start.ts), end to end with the built binary on an embedded dev server of
 * this file's own. Through the socket, a run looks exactly as one the command started itself
 * (`LL_START_SOCKET=0`): same output, exit code, events, environment (secrets never in history),
 * instance id in the command's time zone, same refusal of a busy scope; what the early start
 * refuses (an invalid loop, a usage error, a dry run) the command reports as it would without
 * it; Ctrl-C during the early start stops the run; and a stale socket (nobody listens) or a
 * worker of another build make the command start the run itself.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/processes.js';
import { startSocketFile, workerLog, workerPid } from '../support/worker-files.js';
import { useServerWithProjects } from '../support/server-with-projects.js';
import { HELD_LOOP } from '../support/held-loop.js';
import { BIN } from '../support/cli.js';

const server = useServerWithProjects('ll-sock-', { drop: ['LL_START_SOCKET'], env: { TZ: 'UTC' } });
let connection: Connection | undefined;

const SECRET = 'sekr1t-value-never-in-history';

const LOOPS = {
  two: `name: two
description: two quick states and a terminal
initial: a
default_timeout: 10
states:
  a:
    action: "printf '%s' \\"\${env.LL_T_SECRET}\\" > secret.out; echo from-a-\${context.tag}"
    capture: first
    next: b
  b:
    action: "echo '\${captured.first.output}' >> b.log"
    next: done
  done:
    terminal: true
context:
  tag: none
`,
  held: HELD_LOOP,
};

const project = (name: string): string => server.project(name, LOOPS);

const cli = server.cli;

const socketPath = startSocketFile;
/** Started by the worker for the command: from the loaded loop (start socket) or the command line (early start). */
const viaSocket = (dir: string, id: string) =>
  workerLog(dir).includes(`${id}: started for ll-loop run (start socket)`) || viaEarly(dir, id) || queued(dir, id);
/** `--background`: queued by the worker from the command line the bin sent, and started from its queue. */
const queued = (dir: string, id: string) => workerLog(dir).includes(`${id}: queued for ll-loop run --background`);
/** Started by the worker from the command line the bin sent before loading the CLI. */
const viaEarly = (dir: string, id: string) => workerLog(dir).includes(`${id}: started for ll-loop run (early start)`);

/** The run's output with what differs between two runs (ids, times) blanked. */
function normal(text: string, id: string): string {
  return text
    .replaceAll(id, '<id>')
    .replace(/\d+(\.\d+)?m?s\b/g, '<t>')
    .replace(/"duration_ms": \d+/g, '"duration_ms": <t>');
}

/** The kinds of events in a run's events file, in order. */
function eventKinds(dir: string, id: string): string[] {
  const file = join(dir, '.loops', '.running', `${id}.events.jsonl`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { event: string }).event);
}

async function client(): Promise<Client> {
  connection ??= await Connection.connect({ address: `127.0.0.1:${server.port}`, connectTimeout: '60s' });
  return new Client({ connection });
}

async function historyText(id: string): Promise<string> {
  return JSON.stringify(await (await client()).workflow.getHandle(id).fetchHistory());
}

/** The run's tuning, as its start recorded it in its input. */
async function tuningOf(id: string): Promise<Record<string, unknown>> {
  const history = await (await client()).workflow.getHandle(id).fetchHistory();
  const payload = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
  const { options } = defaultPayloadConverter.fromPayload<LoopWorkflowInput>(payload);
  return { heartbeatTimeoutS: options.heartbeatTimeoutS, localActivityMaxTimeoutS: options.localActivityMaxTimeoutS };
}

/** What the start gave the run besides its input: memo, search attributes, summary, task queue. */
async function startedWith(id: string) {
  const d = await (await client()).workflow.getHandle(id).describe();
  const memo = d.memo ?? {};
  return {
    memo: Object.fromEntries(['cwd', 'file', 'loop', 'version', 'build_id'].map((k) => [k, memo[k]])),
    attributes: d.typedSearchAttributes
      .getAll()
      .filter((p) => ['LoopName', 'LoopCategory', 'LoopCheckout'].includes(p.key.name))
      .sort((a, b) => a.key.name.localeCompare(b.key.name)),
    summary: await d.staticSummary(),
    queue: d.taskQueue,
  };
}

/** `run two --json` in `dir`; its result and instance id. */
async function runTwo(dir: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const r = await cli(dir, ['run', 'two', '--json', '--context', 'tag=x'], { LL_T_SECRET: SECRET, ...extraEnv });
  expect(r.code, r.stderr).toBe(0);
  const id = (JSON.parse(r.stdout) as { instance_id: string }).instance_id;
  return { ...r, id };
}

afterAll(async () => {
  await connection?.close();
});

describe.concurrent('ll-loop run through the checkout worker', () => {
  it('starts through the socket exactly as it starts by itself: output, exit code, events, environment, history', async () => {
    const dir = project('same');
    // The first run starts the worker, waits for it and hands it the start too.
    const first = await runTwo(dir);
    expect(viaSocket(dir, first.id)).toBe(true);
    expect(existsSync(socketPath(dir))).toBe(true);
    expect(workerLog(dir)).not.toContain('this one exits');

    const socket = await runTwo(dir);
    const plain = await runTwo(dir, { LL_START_SOCKET: '0' });
    expect(viaSocket(dir, socket.id)).toBe(true);
    // With the worker up, the bin asks for the start before it loads the CLI.
    expect(viaEarly(dir, socket.id)).toBe(true);
    expect(viaSocket(dir, plain.id)).toBe(false);
    expect(normal(socket.stdout, socket.id)).toBe(normal(plain.stdout, plain.id));
    expect(normal(socket.stderr, socket.id)).toBe(normal(plain.stderr, plain.id));
    expect(eventKinds(dir, socket.id)).toEqual(eventKinds(dir, plain.id));
    expect(readFileSync(join(dir, 'b.log'), 'utf8').trim().split('\n')).toEqual(['from-a-x', 'from-a-x', 'from-a-x']);
    // ${env.*} is resolved by the worker at action time from the command's environment; never in history.
    expect(readFileSync(join(dir, 'secret.out'), 'utf8')).toBe(SECRET);
    const history = await historyText(socket.id);
    expect(history).not.toContain(SECRET);
    expect(await startedWith(socket.id)).toEqual(await startedWith(plain.id));

    // The human display too (not --json).
    const human = await cli(dir, ['run', 'two'], { LL_T_SECRET: SECRET });
    const humanPlain = await cli(dir, ['run', 'two'], { LL_T_SECRET: SECRET, LL_START_SOCKET: '0' });
    expect(human.code).toBe(humanPlain.code);
    const idOf = (out: string) => /run (two-\d{8}T\d{6}(-\d+)?)/.exec(out)![1]!;
    expect(viaEarly(dir, idOf(human.stdout))).toBe(true);
    expect(normal(human.stdout, idOf(human.stdout))).toBe(normal(humanPlain.stdout, idOf(humanPlain.stdout)));
  }, 180_000);

  it('a run right after another command revived the worker waits for that worker: no second one is spawned', async () => {
    const dir = project('revived');
    await runTwo(dir);
    expect((await cli(dir, ['worker', 'stop'])).code).toBe(0);
    // `list` revives the worker without waiting; `run` comes while it is still loading.
    expect((await cli(dir, ['list'])).code).toBe(0);
    const revived = await runTwo(dir);
    expect(viaSocket(dir, revived.id)).toBe(true);
    expect(workerLog(dir)).not.toContain('this one exits');
  }, 120_000);

  it("the run is tuned by the command's environment, not the worker's", async () => {
    const dir = project('tuned');
    await runTwo(dir); // the worker starts without these settings
    const asked = { LL_HEARTBEAT_TIMEOUT_S: '12', LL_LOCAL_ACTIVITY_MAX_TIMEOUT_S: '0' };
    const socket = await runTwo(dir, asked);
    const plain = await runTwo(dir, { ...asked, LL_START_SOCKET: '0' });
    expect(viaSocket(dir, socket.id)).toBe(true);
    expect(await tuningOf(socket.id)).toEqual({ heartbeatTimeoutS: 12, localActivityMaxTimeoutS: 0 });
    expect(await tuningOf(plain.id)).toEqual({ heartbeatTimeoutS: 12, localActivityMaxTimeoutS: 0 });
    expect(await tuningOf((await runTwo(dir)).id)).toEqual({
      heartbeatTimeoutS: undefined,
      localActivityMaxTimeoutS: 30,
    });
  }, 120_000);

  it("the instance id is in the command's time zone, not the worker's", async () => {
    const dir = project('zone');
    await runTwo(dir); // the worker starts with TZ=UTC
    const before = Date.now();
    const r = await runTwo(dir, { TZ: 'Etc/GMT-14' }); // UTC+14
    expect(viaSocket(dir, r.id)).toBe(true);
    const m = /two-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})/.exec(r.id)!;
    const asUtc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
    expect(Math.abs(asUtc - 14 * 3_600_000 - before)).toBeLessThan(120_000);
  }, 120_000);

  it('a busy scope is refused through the socket with the same error and exit code', async () => {
    const dir = project('busy');
    await runTwo(dir);
    const holder = await cli(dir, ['run', 'held', '--background', '--json']);
    expect(holder.code, holder.stderr).toBe(0);
    const holderId = (JSON.parse(holder.stdout) as { instance_id: string }).instance_id;
    expect(viaSocket(dir, holderId)).toBe(true);
    await waitFor(
      'the held run to hold the scope',
      async () => (await cli(dir, ['queue', 'list', '--json'])).stdout.includes(holderId),
      60_000,
      250,
    );
    const socket = await cli(dir, ['run', 'two']);
    const plain = await cli(dir, ['run', 'two'], { LL_START_SOCKET: '0' });
    expect(socket.code).toBe(8);
    expect(plain.code).toBe(8);
    expect(socket.stderr).toContain(`held by ${holderId}`);
    expect(socket.stderr).toBe(plain.stderr);
    writeFileSync(join(dir, 'held.go'), '');
  }, 120_000);

  it('what the early start refuses, the command reports as it does by itself: an invalid loop, a usage error; a dry run is never asked', async () => {
    const dir = project('refused');
    await runTwo(dir); // the worker is up from here on
    writeFileSync(
      join(dir, '.loops', 'bad.yaml'),
      'name: bad\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "true"\n    on_yes: nowhere\n  done:\n    terminal: true\n',
    );
    const started = () => (workerLog(dir).match(/: started for ll-loop run/g) ?? []).length;
    const before = started();
    for (const args of [
      ['run', 'bad'],
      ['run', 'bad', '--json'],
      ['run', 'two', '--verbose', '--quiet'],
      ['run', 'two', '--max-iterations', '0'],
      ['run', 'two', '--context', 'nope=1'],
    ]) {
      const early = await cli(dir, args);
      const plain = await cli(dir, args, { LL_START_SOCKET: '0' });
      expect(early.code, args.join(' ')).not.toBe(0);
      expect(early.code, args.join(' ')).toBe(plain.code);
      expect(early.stdout, args.join(' ')).toBe(plain.stdout);
      expect(early.stderr, args.join(' ')).toBe(plain.stderr);
    }
    expect(started()).toBe(before); // nothing was started
    expect(workerLog(dir)).toMatch(/an early start was refused \(\S*bad\.yaml is not a valid loop\)/);
    expect(workerLog(dir)).toContain(
      'an early start was refused (the command line: --verbose and --quiet contradict each other)',
    );
    // A dry run prints its plan; the worker is not asked at all.
    const refusals = (workerLog(dir).match(/an early start was refused/g) ?? []).length;
    const dry = await cli(dir, ['run', 'two', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe((await cli(dir, ['run', 'two', '--dry-run'], { LL_START_SOCKET: '0' })).stdout);
    expect((workerLog(dir).match(/an early start was refused/g) ?? []).length).toBe(refusals);
    expect(started()).toBe(before);
  }, 180_000);

  it('Ctrl-C right after the early start stops the run: recorded as stopped, exit 6', async () => {
    const dir = project('early-interrupt');
    await runTwo(dir); // the worker is up
    const child = spawn(process.execPath, [BIN, 'run', 'held'], { cwd: dir, env: server.env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // As soon as the worker has started the run: the command may still be loading its CLI.
    await waitFor(
      'the early start',
      () => /held-\S+: started for ll-loop run \(early start\)/.test(workerLog(dir)),
      60_000,
      5,
    );
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, `${out}\n${err}`).toBe(6);
    expect(err).toContain('stopping: cancelling the running action');
    const id = /(held-\d{8}T\d{6}(-\d+)?): started for ll-loop run \(early start\)/.exec(workerLog(dir))![1]!;
    const status = JSON.parse((await cli(dir, ['status', id, '--json'])).stdout) as {
      status: string;
      result: { terminated_by: string; final_state: string; stopped_waiting_for?: string[] };
    };
    expect(status).toMatchObject({ status: 'cancelled', result: { terminated_by: 'cancelled', final_state: 'wait' } });
    // The stop may land before the run's scope lock has answered (the run waits for scope `.`
    // before its first state) or after: the command says what the run records.
    if (status.result.stopped_waiting_for) {
      expect(status.result.stopped_waiting_for).toEqual(['.']);
      expect(out).toContain('Loop stopped while waiting for its scope ., before its first state');
    } else expect(out).toContain('Loop stopped in state wait');
  }, 120_000);

  it('a stale socket (nobody listens) or a worker of another build: the command starts the run itself', async () => {
    const dir = project('stale');
    await runTwo(dir);
    const pid = workerPid(dir)!;
    // Leave a socket file nobody listens on: a process that listened there and was killed.
    rmSync(socketPath(dir), { force: true });
    const listener = spawn(process.execPath, [
      '-e',
      "require('net').createServer().listen(process.argv[1], () => console.log('up'))",
      socketPath(dir),
    ]);
    let said = '';
    listener.stdout.on('data', (d: Buffer) => (said += d.toString()));
    await waitFor('the listener to be up', () => said.includes('up'));
    listener.kill('SIGKILL');
    await waitFor('the listener to die', () => listener.exitCode !== null || listener.signalCode !== null);
    expect(existsSync(socketPath(dir))).toBe(true);

    const stale = await runTwo(dir);
    expect(viaSocket(dir, stale.id)).toBe(false);
    expect(stale.stdout).toContain('"final_state": "done"');
    expect(workerPid(dir)).toBe(pid); // the same worker ran it

    // Another build: the command does not ask that worker; it replaces it with a worker of its
    // own build and asks that one.
    const other = await runTwo(dir, { LL_CODE_ID: 'another-build' });
    expect(workerPid(dir)).not.toBe(pid);
    expect(workerLog(dir)).toContain(`replacing the worker pid ${pid}`);
    expect(viaSocket(dir, other.id)).toBe(true);
  }, 180_000);
});

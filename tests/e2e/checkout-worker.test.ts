/**
 * The checkout's worker, end to end with the built binary on an embedded dev server of this file's
 * own: a run belongs to the worker of its checkout, not to the terminal that started it. Killing
 * or hanging up `ll-loop run` leaves the run going; a SIGKILLed worker is brought back by any
 * command and its open runs finish by themselves; one worker per checkout; a worker of another
 * build hands over by draining. Each test has its own checkout (so its own worker).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkerIdentity } from '../../host/checkout.js';
import { BIN, runCliBinary } from '../support/cli.js';
import { freePort, killIfAlive, liveProcesses, pidAlive, waitFor } from '../support/processes.js';

let base: string;
let env: NodeJS.ProcessEnv;
let port: number;
const children = new Set<ChildProcess>();
const projects: string[] = [];
let connection: Connection | undefined;

/** A fresh checkout: `<base>/<name>/.loops/`. */
function project(name: string): string {
  const dir = join(base, name);
  mkdirSync(join(dir, '.loops'), { recursive: true });
  projects.push(dir);
  return dir;
}

function loop(dir: string, name: string, yaml: string): void {
  writeFileSync(join(dir, '.loops', `${name}.yaml`), yaml);
}

const cli = (dir: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  runCliBinary(args, { cwd: dir, env: { ...env, ...extraEnv } });

interface Running {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function start(dir: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...env, ...extraEnv } });
  children.add(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) =>
      child.on('exit', (code, signal) => {
        children.delete(child);
        resolve({ code, signal, ...out });
      }),
  );
  return { child, out, exited };
}

/** Let the held state `b` of loop `name` finish. */
function release(dir: string, name: string): void {
  writeFileSync(join(dir, `${name}.go`), '');
}

function lines(dir: string, file: string): string[] {
  const path = join(dir, file);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

interface Record {
  pid: number;
  code_id: string;
  host: string;
  version: string;
  started_by: string;
}

function workerRecord(dir: string): Record | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, '.loops', '.worker', 'worker.json'), 'utf8')) as Record;
  } catch {
    return undefined;
  }
}

async function client(): Promise<Client> {
  connection ??= await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: '60s' });
  return new Client({ connection });
}

/**
 * a → b (held until the test creates `<name>.go`) → c: `a` and `b` leave one line per start, `c`
 * writes what was captured. `b`'s command line holds `<name>.go` (to find its process).
 */
function threeStates(name: string): string {
  return `name: ${name}
description: a, then a slow b, then c
initial: a
states:
  a:
    action: "echo run >> ${name}-a.log; echo first-\${context.tag}"
    capture: first
    next: b
  b:
    action: "echo start >> ${name}-b.log; while [ ! -e ${name}.go ]; do sleep 0.05; done; echo second"
    capture: second
    timeout: 3600
    next: c
  c:
    action: "echo '\${captured.first.output}+\${captured.second.output}' > ${name}-c.out"
    terminal: true
context:
  tag: none
`;
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'll-loop-checkout-worker-'));
  mkdirSync(join(base, '.loops'));
  port = await freePort();
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    LL_TEMPORAL_PORT: String(port),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    LL_TEMPORAL_DATA_DIR: join(base, '.loops', '.temporal'),
    NO_COLOR: '1',
  };
  const started = await cli(base, ['server', 'start']);
  expect(started.code, started.stderr).toBe(0);
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of projects) {
    killIfAlive(workerRecord(dir)?.pid);
  }
  await connection?.close();
  await cli(base, ['server', 'stop']);
});

describe.concurrent('a run outlives the terminal that started it', () => {
  it('SIGKILL of `ll-loop run`: the checkout worker finishes the run, nothing runs twice, and `resume <name>` follows it', async () => {
    const dir = project('killed-client');
    loop(dir, 'crash', threeStates('crash'));
    const run = start(dir, ['run', 'crash', '--context', 'tag=kept']);
    // The project's first command starts its checkout worker: on a loaded machine that alone can take 30 s.
    await waitFor('state b to start', () => run.out.stdout.includes('b → echo start'), 90_000).catch((err: Error) => {
      // What the command had printed, and whether b had started at all (the progress, or the run).
      throw new Error(
        `${err.message} (crash-b.log: ${lines(dir, 'crash-b.log').length} lines)\nstdout: ${run.out.stdout}\nstderr: ${run.out.stderr}`,
      );
    });
    run.child.kill('SIGKILL');
    await run.exited;
    const following = start(dir, ['resume', 'crash']);
    await waitFor('resume to follow the open run', () => following.out.stdout.includes('is still open'));
    release(dir, 'crash');
    const resumed = await following.exited;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(
      /crash-\d{8}T\d{6} is still open: the worker pid \d+ on \S+ serves it; following it/,
    );
    expect(resumed.stdout).toContain('Loop completed: c');
    expect(lines(dir, 'crash-a.log')).toHaveLength(1);
    expect(lines(dir, 'crash-b.log')).toHaveLength(1); // the worker never died: no retry
    expect(readFileSync(join(dir, 'crash-c.out'), 'utf8').trim()).toBe('first-kept+second');
  }, 180_000);

  it('SIGHUP (the terminal closes) ends `ll-loop run` but not the run', async () => {
    const dir = project('hangup');
    loop(dir, 'hup', threeStates('hup'));
    const run = start(dir, ['run', 'hup', '--json']);
    await waitFor('state b to start', () => lines(dir, 'hup-b.log').length === 1, 90_000);
    run.child.kill('SIGHUP');
    const ended = await run.exited;
    expect(ended.signal).toBe('SIGHUP');
    release(dir, 'hup');
    await waitFor('the run to finish without its terminal', () => existsSync(join(dir, 'hup-c.out')), 30_000);
    expect(readFileSync(join(dir, 'hup-c.out'), 'utf8').trim()).toBe('first-none+second');
    expect(lines(dir, 'hup-b.log')).toHaveLength(1);
  }, 150_000);

  it('`run --background` returns at once; the checkout worker (not a worker of the run) runs it and keeps serving', async () => {
    const dir = project('background');
    loop(dir, 'bg', threeStates('bg'));
    const began = Date.now();
    const started = await cli(dir, ['run', 'bg', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    // The run cannot end before the test releases `b`: returning at all shows the command did not
    // wait for it; the bound is generous because the first command also starts the checkout worker.
    expect(Date.now() - began).toBeLessThan(45_000);
    const out = JSON.parse(started.stdout) as { instance_id: string; task_queue: string; worker_pid: number };
    const record = workerRecord(dir)!;
    expect(out.worker_pid).toBe(record.pid);
    expect(out.task_queue).toMatch(/^ll-loop\.checkout\./);
    const handle = (await client()).workflow.getHandle(out.instance_id);
    expect((await handle.describe()).status.name).toBe('RUNNING'); // b is held: the command did not wait
    release(dir, 'bg');
    expect(await handle.result()).toMatchObject({ terminated_by: 'terminal', final_state: 'c' });
    expect(pidAlive(record.pid)).toBe(true);
    const log = readFileSync(join(dir, '.loops', '.worker', 'worker.log'), 'utf8');
    expect(log).toContain(`started ${out.instance_id}`);
    expect(log).toContain(`finished ${out.instance_id}: terminal in state c`);
    // list --running shows who serves a run: host, pid, version.
    loop(
      dir,
      'wait',
      'name: wait\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "while [ ! -e wait.go ]; do sleep 0.05; done"\n    next: done\n  done:\n    terminal: true\n',
    );
    const second = JSON.parse((await cli(dir, ['run', 'wait', '--background', '--json'])).stdout) as {
      instance_id: string;
    };
    const listed = JSON.parse((await cli(dir, ['list', '--running', '--json'])).stdout) as Array<{
      id: string;
      served_by: Array<{ pid: number; host: string; version: string }>;
    }>;
    const row = listed.find((r) => r.id === second.instance_id)!;
    expect(row.served_by).toEqual([
      expect.objectContaining({ pid: record.pid, host: record.host, version: record.version }),
    ]);
    const table = (await cli(dir, ['list', '--running'])).stdout;
    expect(table).toContain(`pid ${record.pid} on ${record.host} (${record.version})`);
    release(dir, 'wait');
    await (await client()).workflow.getHandle(second.instance_id).result();
  }, 60_000);
});

describe.concurrent('a worker that dies', () => {
  it('SIGKILL of the checkout worker mid-action: an unrelated `ll-loop list` brings it back and the run finishes by itself', async () => {
    const dir = project('killed-worker');
    loop(dir, 'deadworker', threeStates('deadworker'));
    const started = await cli(dir, ['run', 'deadworker', '--background', '--json'], { LL_HEARTBEAT_TIMEOUT_S: '8' });
    expect(started.code, started.stderr).toBe(0);
    const { instance_id: id, worker_pid: workerPid } = JSON.parse(started.stdout) as {
      instance_id: string;
      worker_pid: number;
    };
    await waitFor('state b to start', () => lines(dir, 'deadworker-b.log').length === 1);
    process.kill(workerPid, 'SIGKILL');
    const killedAt = Date.now();
    // The action dies with its worker (process-group watchdog).
    await waitFor("the killed worker's action to end", () => liveProcesses('deadworker.go') === 0, 10_000);
    const listed = await cli(dir, ['list']);
    expect(listed.code, listed.stderr).toBe(0);
    await waitFor(
      'a new worker to serve the checkout',
      () => (workerRecord(dir)?.pid ?? workerPid) !== workerPid && pidAlive(workerRecord(dir)!.pid),
      20_000,
    );
    // The dead worker's attempt ends by the action's heartbeat timeout (the run's own, 8 s here), or
    // sooner when the new worker fails it over as it starts; never by its 3600 s timeout.
    await waitFor(
      'the action to be retried on the new worker',
      () => lines(dir, 'deadworker-b.log').length === 2,
      45_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(45_000);
    release(dir, 'deadworker');
    const result = await (await client()).workflow.getHandle(id).result();
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'c' });
    expect(lines(dir, 'deadworker-a.log')).toHaveLength(1);
    expect(lines(dir, 'deadworker-b.log')).toHaveLength(2); // the killed attempt, and one retry
    expect(readFileSync(join(dir, 'deadworker-c.out'), 'utf8').trim()).toBe('first-none+second');
    const events = readFileSync(join(dir, '.loops', '.running', `${id}.events.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; event: string });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.event === 'loop_complete')).toHaveLength(1);
  }, 120_000);

  it('SIGKILL of the checkout worker while `status --follow` and `logs --follow` follow the run: they bring it back, say so, and follow it to its end', async () => {
    const dir = project('followed-worker');
    loop(dir, 'watched', threeStates('watched'));
    const started = await cli(dir, ['run', 'watched', '--background', '--json'], { LL_HEARTBEAT_TIMEOUT_S: '8' });
    expect(started.code, started.stderr).toBe(0);
    const { instance_id: id, worker_pid: workerPid } = JSON.parse(started.stdout) as {
      instance_id: string;
      worker_pid: number;
    };
    await waitFor('state b to start', () => lines(dir, 'watched-b.log').length === 1);
    const status = start(dir, ['status', id, '--follow']);
    const logs = start(dir, ['logs', id, '--follow']);
    await waitFor('status --follow to show b', () => status.out.stdout.includes('b → echo start'), 60_000);
    await waitFor('logs --follow to show a', () => logs.out.stdout.includes('=== a · pass 1'), 60_000);
    process.kill(workerPid, 'SIGKILL');
    // No other command runs in the checkout: only the followers can bring a worker back.
    await waitFor(
      'a new worker to serve the checkout',
      () => (workerRecord(dir)?.pid ?? workerPid) !== workerPid && pidAlive(workerRecord(dir)!.pid),
      60_000,
    );
    await waitFor('the action to run again on the new worker', () => lines(dir, 'watched-b.log').length === 2, 60_000);
    release(dir, 'watched');
    const [s, l] = await Promise.all([status.exited, logs.exited]);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toContain('Loop completed: c');
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).toContain('=== b · pass 1 · exit 0');
    const note = `note: the checkout's worker (pid ${workerPid}) is gone; starting another: the run goes on`;
    expect(s.stderr + l.stderr).toContain(note);
    expect(readFileSync(join(dir, 'watched-c.out'), 'utf8').trim()).toBe('first-none+second');
  }, 180_000);

  it('one worker per checkout: a second `ll-loop worker` says which one serves it; outside a checkout it says why not', async () => {
    const dir = project('single');
    loop(
      dir,
      'quick',
      'name: quick\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
    );
    expect((await cli(dir, ['run', 'quick'])).code).toBe(0);
    const record = workerRecord(dir)!;
    const second = await cli(dir, ['worker'], { LL_WORKER_STARTED_BY: '' });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`a worker (pid ${record.pid}) already serves ${dir}`);
    const nowhere = mkdtempSync(join(tmpdir(), 'll-loop-not-a-checkout-'));
    const outside = await cli(nowhere, ['worker'], { LL_WORKER_STARTED_BY: '' });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('is not a checkout');
    expect(outside.stderr).toContain('fix:');
  }, 60_000);

  it('a worker of another build is replaced by the next command: it drains (its running action finishes there, once) and hands over', async () => {
    const dir = project('upgrade');
    loop(dir, 'handover', threeStates('handover'));
    const old = start(dir, ['worker'], { LL_CODE_ID: 'older-build', LL_WORKER_STARTED_BY: 'service' });
    await waitFor('the old worker to serve', () => workerRecord(dir)?.code_id === 'older-build');
    // Started through the old worker's code id, so the old worker runs it.
    const started = await cli(dir, ['run', 'handover', '--background', '--json'], { LL_CODE_ID: 'older-build' });
    expect(started.code, started.stderr).toBe(0);
    const { instance_id: id } = JSON.parse(started.stdout) as { instance_id: string };
    await waitFor('state b to start on the old worker', () => lines(dir, 'handover-b.log').length === 1);
    expect((await cli(dir, ['list'])).code).toBe(0); // this build's command: the old worker is replaced
    await waitFor('the old worker to drain', () => old.out.stdout.includes('draining (SIGTERM)'), 20_000);
    release(dir, 'handover');
    const gone = await old.exited;
    expect(gone.code).toBe(0);
    expect(gone.stdout).toContain('draining (SIGTERM)');
    await waitFor(
      'the new worker to serve',
      () => workerRecord(dir) !== undefined && workerRecord(dir)!.code_id !== 'older-build',
      20_000,
    );
    const result = await (await client()).workflow.getHandle(id).result();
    expect(result).toMatchObject({ terminated_by: 'terminal', final_state: 'c' });
    expect(lines(dir, 'handover-b.log')).toHaveLength(1); // finished on the old worker while it drained
    expect(readFileSync(join(dir, 'handover-c.out'), 'utf8').trim()).toBe('first-none+second');
  }, 90_000);

  it("a run this build starts while another build's worker serves is run by this build's worker from its first task", async () => {
    const dir = project('newrun');
    loop(dir, 'fresh', threeStates('fresh'));
    const old = start(dir, ['worker'], { LL_CODE_ID: 'older-build', LL_WORKER_STARTED_BY: 'service' });
    await waitFor('the old worker to serve', () => workerRecord(dir)?.code_id === 'older-build');
    const oldPid = workerRecord(dir)!.pid;
    // This build's `run`: its worker replaces the old one before the run exists, so the old one,
    // polling the same queue until it drains, never takes the run's first workflow task (its
    // bundle lacks this release's rules: the run would not replay on the new worker).
    const started = await cli(dir, ['run', 'fresh', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const { instance_id: id } = JSON.parse(started.stdout) as { instance_id: string };
    await waitFor('state b to start', () => lines(dir, 'fresh-b.log').length === 1);
    release(dir, 'fresh');
    const handle = (await client()).workflow.getHandle(id);
    expect(await handle.result()).toMatchObject({ terminated_by: 'terminal', final_state: 'c' });
    const history = await handle.fetchHistory();
    const completedBy = history
      .events!.filter((e) => e.workflowTaskCompletedEventAttributes)
      .map((e) => parseWorkerIdentity(e.workflowTaskCompletedEventAttributes!.identity ?? '')?.pid);
    expect(completedBy.length).toBeGreaterThan(0);
    expect(completedBy).not.toContain(oldPid);
    expect((await old.exited).stdout).toContain('draining (SIGTERM)');
  }, 90_000);
});

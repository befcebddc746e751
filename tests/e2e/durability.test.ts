/**
 * Durability promises of the `ll-loop` binary, end to end, on an embedded dev server of this
 * file's own (free ports, a temporary project): the server can restart under a running loop,
 * `resume` refuses what it cannot do, and `ll-loop worker --task-queue` serves a shared queue.
 * (The checkout's worker and what survives it: checkout-worker.test.ts.)
 * Runs the built package (dist/), which `npm test` builds first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCliBinary } from '../support/cli.js';
import { freePort, liveProcesses, pidAlive, waitFor } from '../support/processes.js';

let cwd: string;
let env: NodeJS.ProcessEnv;
let port: number;
const children = new Set<ChildProcess>();
let connection: Connection | undefined;

function loop(name: string, yaml: string): void {
  writeFileSync(join(cwd, '.loops', `${name}.yaml`), yaml);
}

/** `ll-loop <args…>` in the test project, waited for. */
const cli = (args: string[]) => runCliBinary(args, { cwd, env });

interface Running {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Start the binary without waiting; its output accumulates in `out`. */
function start(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env });
  children.add(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => {
      children.delete(child);
      resolve({ code, ...out });
    }),
  );
  return { child, out, exited };
}

function lines(file: string): string[] {
  const path = join(cwd, file);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

async function client(): Promise<Client> {
  connection ??= await Connection.connect({ address: `127.0.0.1:${port}` });
  return new Client({ connection });
}

/**
 * a → b (slow, marked) → c: `a` and `b` leave one line per start, `c` writes what was captured.
 * Each loop claims a scope of its own: the tests share one checkout and run side by side.
 */
function threeStates(name: string, sleep: string): string {
  return `name: ${name}
description: a, then a slow b, then c
scope: ["${name}"]
initial: a
states:
  a:
    action: "echo run >> ${name}-a.log; echo first-\${context.tag}"
    capture: first
    next: b
  b:
    action: "echo start >> ${name}-b.log; sleep ${sleep}; echo second"
    capture: second
    next: c
  c:
    action: "echo '\${captured.first.output}+\${captured.second.output}' > ${name}-c.out"
    terminal: true
context:
  tag: none
`;
}

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'll-loop-durability-'));
  mkdirSync(join(cwd, '.loops'));
  port = await freePort();
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = { ...rest, LL_TEMPORAL_PORT: String(port), LL_TEMPORAL_UI_PORT: String(await freePort()), NO_COLOR: '1' };
  const started = await cli(['server', 'start']);
  expect(started.code, started.stderr).toBe(0);
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await connection?.close();
  await cli(['server', 'stop']);
});

describe('the server restarts under a running loop', () => {
  it('`server stop` then `server start` mid-action: the checkout worker reconnects and the run completes', async () => {
    loop('restart', threeStates('restart', '5.2929'));
    const run = start(['run', 'restart', '--context', 'tag=survived']);
    await waitFor('state b to start', () => run.out.stdout.includes('b → echo start'));
    // It says the run open on it waits there and goes on when the server runs again.
    expect((await cli(['server', 'stop'])).stdout).toMatch(
      /^stopped; 1 run is open on it: kept in its data \(.+\), it continues when the server runs again/,
    );
    await new Promise((r) => setTimeout(r, 2_000));
    const restarted = await cli(['server', 'start']);
    expect(restarted.code, restarted.stderr).toBe(0);
    const done = await run.exited;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('Loop completed: c');
    expect(done.stderr).not.toContain('WARN'); // the native core's retry noise stays quiet
    expect(readFileSync(join(cwd, 'restart-c.out'), 'utf8').trim()).toBe('first-survived+second');
    expect(lines('restart-a.log')).toHaveLength(1);
    // One event stream across the server restart: each number once, in order.
    const id =
      /run (restart-\d{8}T\d{6}(?:-\d+)?)/.exec(done.stdout)?.[1] ??
      /(restart-\d{8}T\d{6}(?:-\d+)?)/.exec(done.stdout)![1]!;
    const events = readFileSync(join(cwd, '.loops', '.running', `${id}.events.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; event: string });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.event === 'loop_start')).toHaveLength(1);
  }, 120_000);
});

describe('resume refuses what it cannot do', () => {
  it('a run or loop that does not exist, and a run that finished, are clear errors', async () => {
    loop(
      'quick',
      'name: quick\ndescription: d\nscope: [quick]\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
    );
    const missing = await cli(['resume', 'no-such-loop']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no loop run matches "no-such-loop"');
    const finished = await cli(['run', 'quick', '--json']);
    expect(finished.code).toBe(0);
    const id = (JSON.parse(finished.stdout) as { instance_id: string }).instance_id;
    const byId = await cli(['resume', id]);
    expect(byId.code).toBe(1);
    expect(byId.stderr).toContain(`run ${id} finished at its terminal state done; there is nothing to resume`);
    const byName = await cli(['resume', 'quick']);
    expect(byName.code).toBe(1);
    expect(byName.stderr).toContain(
      `no run of quick can be resumed; its latest run ${id} finished at its terminal state done`,
    );
  }, 120_000); // four commands, each a process that connects: over a minute on a busy machine

  it('a stopped run continues as <id>-r1 with its captured values; two concurrent resumes: one wins, the other says so', async () => {
    loop(
      'gate',
      `name: gate
description: b fails until the gate file exists
scope: [gate]
initial: a
states:
  a:
    action: "echo run >> gate-a.log; echo first-\${context.tag}"
    capture: first
    next: b
  b:
    action: "test -f gate-open && sleep 4.1414"
    on_yes: c
  c:
    action: "echo '\${captured.first.output}' > gate-c.out"
    terminal: true
context:
  tag: none
`,
    );
    const failed = await cli(['run', 'gate', '--context', 'tag=original', '--json']);
    expect(failed.code).toBe(5);
    const id = (JSON.parse(failed.stdout) as { instance_id: string }).instance_id;
    writeFileSync(join(cwd, 'gate-open'), '');

    const [one, two] = await Promise.all([start(['resume', id]).exited, start(['resume', id]).exited]);
    const [winner, loser] = one.code === 0 ? [one, two] : [two, one];
    expect(winner.code, winner.stderr).toBe(0);
    expect(winner.stdout).toContain(`resuming ${id} (error in state b, pass 1/50) as ${id}-r1`);
    expect(loser.code, loser.stderr).toBe(1);
    expect(loser.stderr).toContain(`run ${id} is already being resumed as ${id}-r1`);
    expect(lines('gate-a.log')).toHaveLength(1);
    expect(readFileSync(join(cwd, 'gate-c.out'), 'utf8').trim()).toBe('first-original');
    const description = await (await client()).workflow.getHandle(`${id}-r1`).describe();
    expect(description.memo).toMatchObject({ resumed_from: id, loop: 'gate', cwd });
    await waitFor('no sleeper left', () => liveProcesses('sleep 4.1414') === 0, 10_000);
  }, 120_000);
});

describe('runs outside the terminal', () => {
  it('`run --task-queue Q` is served by `ll-loop worker --task-queue Q`, which stops gracefully on SIGTERM', async () => {
    loop(
      'pooled',
      'name: pooled\ndescription: d\nscope: [pooled]\ninitial: a\nstates:\n  a:\n    action: "echo pooled"\n    capture: said\n    next: done\n  done:\n    terminal: true\n',
    );
    const queue = `pool-${Date.now()}`;
    const worker = start(['worker', '--task-queue', queue]);
    const ran = await start(['run', 'pooled', '--task-queue', queue, '--json']).exited;
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({
      terminated_by: 'terminal',
      captured: { said: { output: 'pooled' } },
    });
    await waitFor('the worker to log the finished run', () => worker.out.stdout.includes('finished pooled-'));
    worker.child.kill('SIGTERM');
    const stopped = await worker.exited;
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`polling task queue ${queue}`);
    expect(stopped.stdout).toContain('stopped');
  }, 60_000);

  it('leaves no process behind but the checkout worker, which drains and exits on SIGTERM', async () => {
    await waitFor(
      'every sleeper to end',
      () => ['5.2929', '4.1414'].every((s) => liveProcesses(`sleep ${s}`) === 0),
      15_000,
    );
    const record = JSON.parse(readFileSync(join(cwd, '.loops', '.worker', 'worker.json'), 'utf8')) as { pid: number };
    process.kill(record.pid, 'SIGTERM');
    await waitFor('the checkout worker to exit', () => !pidAlive(record.pid), 15_000);
    expect(existsSync(join(cwd, '.loops', '.worker', 'worker.json'))).toBe(false);
    expect(children.size).toBe(0);
  });
});

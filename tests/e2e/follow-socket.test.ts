/**
 * `ll-loop run` in the foreground follows its run through the checkout worker's socket when that
 * worker started it (runs/start/run-followed.ts, runs/follow/serve-follow.ts), end to end with
 * the built binary on an embedded dev server of this file's own: the command loads no Temporal SDK
 * at all, and shows, exits and answers exactly as the command that starts the run and follows its
 * history itself (`LL_START_SOCKET=0`): the progress display with the actions' output and a sub-loop's
 * lines, `--json`, a failing run's exit code, the `--queue` note, Ctrl-C; the worker killed
 * mid-run, after which the command brings it back and follows the run's history to its end; and
 * `run --background`, which prints what the worker answered.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { waitFor } from '../support/processes.js';
import { waitForRunEvent } from '../support/run-events.js';
import { workerLog, workerPid } from '../support/worker-files.js';
import { useServerWithProjects } from '../support/server-with-projects.js';
import { HELD_LOOP } from '../support/held-loop.js';
import { sdkProbe } from '../support/sdk-probe.js';

const server = useServerWithProjects('ll-follow-sock-', {
  drop: ['LL_START_SOCKET'],
  env: { TZ: 'UTC' },
});

/** The long loop's action: a sleep of this process's own, which a copy of this file running beside it does not share. */
const SLEEP = `sleep 47.${process.pid}`;

const LOOPS: Record<string, string> = {
  parent: `name: parent
description: an action with output, a sub-loop, a captured value
initial: a
default_timeout: 10
states:
  a:
    action: "echo out-of-a; echo err-of-a >&2"
    capture: first
    next: sub
  sub:
    loop: inner
    on_yes: b
    on_no: b
  b:
    action: "echo '\${captured.first.output}-again'"
    next: done
  done:
    terminal: true
`,
  inner: `name: inner
description: a sub-loop with one action
initial: hello
default_timeout: 10
states:
  hello:
    action: "echo inner-out"
    next: finish
  finish:
    terminal: true
`,
  fails: `name: fails
description: ends in a failure terminal
initial: a
default_timeout: 10
states:
  a:
    action: "echo checking; exit 1"
    on_yes: done
    on_no: failed
  done:
    terminal: true
  failed:
    terminal: true
    failure: true
`,
  held: HELD_LOOP,
  killed: `name: killed
description: a, then b held until killed.go
initial: a
default_timeout: 10
states:
  a:
    action: "echo shown-a"
    next: b
  b:
    action: "echo start >> killed-b.log; while [ ! -e killed.go ]; do sleep 0.05; done; echo shown-b"
    timeout: 600
    next: done
  done:
    terminal: true
`,
  long: `name: long
description: runs until stopped
initial: a
states:
  a:
    action: "echo started; ${SLEEP}"
    next: done
  done:
    terminal: true
`,
};

const project = (name: string): string => server.project(name, LOOPS);

const cli = server.cli;

const followedByWorker = (dir: string, id: string) => workerLog(dir).includes(`${id}: followed for ll-loop run`);

/** The run's output with what differs between two runs (ids, times) blanked. */
function normal(text: string): string {
  return text
    .replace(/\b(parent|inner|fails|held|long)-\d{8}T\d{6}(-\d+)?\b/g, '<$1-id>')
    .replace(/\d+(\.\d+)?m?s\b/g, '<t>')
    .replace(/"(duration_ms|[a-z_]+_at)": [^,\n]+/g, '"$1": <t>');
}

/** How many of the long loop's `sleep` processes are alive. */
function sleeping(): number {
  const ps = spawnSync('pgrep', ['-f', SLEEP], { encoding: 'utf8' });
  return ps.stdout.trim().split('\n').filter(Boolean).length;
}

/**
 * `ll-loop <args>` in `dir`, its output gathered as it comes. Its `waitFor` fails at once, with
 * the command's output, when the command has exited before what it waits for: a refused start
 * (exit 8) says why instead of timing out on a line that never comes.
 */
function command(dir: string, args: string[], env: NodeJS.ProcessEnv = server.env) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env });
  let out = '';
  let err = '';
  let code: number | null | undefined;
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (c) => {
      code = c;
      resolve(c);
    }),
  );
  return {
    child,
    exited,
    out: () => out,
    err: () => err,
    waitFor: (what: string, check: () => boolean, timeoutMs: number, intervalMs: number) =>
      waitFor(
        what,
        () => {
          if (check()) return true;
          if (code !== undefined)
            throw new Error(`ll-loop ${args.join(' ')} exited (${code}) before ${what}:\n${err}${out}`);
          return false;
        },
        timeoutMs,
        intervalMs,
      ).catch((e: unknown) => {
        throw code === undefined ? new Error(`${(e as Error).message}; the command so far:\n${err}${out}`) : e;
      }),
  };
}

const idIn = (text: string) => /\b((?:parent|fails|long|held|killed)-\d{8}T\d{6}(?:-\d+)?)\b/.exec(text)?.[1] ?? '';

/** `ll-loop …` with the probe preloaded: the result and the Temporal SDK modules it loaded. */
let probed: ReturnType<typeof sdkProbe>;
beforeAll(() => {
  probed = sdkProbe(server.base, cli);
});

describe.concurrent('ll-loop run followed through the checkout worker', () => {
  it('loads no Temporal SDK and shows, answers and exits as the history follower does', async () => {
    const dir = project('same');
    const warm = await cli(dir, ['run', 'fails']); // starts the worker: no socket yet
    expect(warm.code, warm.stderr).toBe(2);
    for (const args of [
      ['run', 'parent'],
      ['run', 'parent', '--json'],
      ['run', 'fails'],
      ['run', 'fails', '--json'],
    ]) {
      const socket = await probed(dir, args);
      const plain = await cli(dir, args, { LL_START_SOCKET: '0' });
      expect(followedByWorker(dir, idIn(socket.stdout)), socket.stdout).toBe(true);
      expect(followedByWorker(dir, idIn(plain.stdout))).toBe(false);
      expect(socket.sdk, args.join(' ')).toEqual([]);
      expect(socket.code, socket.stderr).toBe(plain.code);
      expect(normal(socket.stdout)).toBe(normal(plain.stdout));
      expect(normal(socket.stderr)).toBe(normal(plain.stderr));
    }
    // What the display shows came through: the actions' output, the sub-loop's own lines.
    const shown = (await cli(dir, ['run', 'parent', '--verbose'])).stdout;
    expect(shown).toContain('out-of-a');
    expect(shown).toContain('inner-out');
    expect(shown).toContain('out-of-a-again');
  }, 180_000);

  it('--background: what the worker answered is all the command prints; no Temporal SDK, the same lines', async () => {
    const dir = project('background');
    expect((await cli(dir, ['run', 'fails'])).code).toBe(2); // starts the worker
    for (const args of [
      ['run', 'fails', '--background'],
      ['run', 'fails', '--background', '--json'],
    ]) {
      const socket = await probed(dir, args);
      expect(socket.code, socket.stderr).toBe(0);
      expect(socket.sdk, args.join(' ')).toEqual([]);
      // Each run ends before the next starts (they share the checkout's scope).
      const followed = await cli(dir, ['status', idIn(socket.stdout), '--follow']);
      expect(followed.code, followed.stderr + followed.stdout).toBe(2);
      const plain = await cli(dir, args, { LL_START_SOCKET: '0' });
      expect(plain.code, plain.stderr).toBe(0);
      const followedPlain = await cli(dir, ['status', idIn(plain.stdout), '--follow']);
      expect(followedPlain.code, followedPlain.stderr + followedPlain.stdout).toBe(2);
      expect(normal(socket.stdout)).toBe(normal(plain.stdout));
      expect(normal(socket.stderr)).toBe(normal(plain.stderr));
    }
  }, 180_000);

  it('--queue: the note that the run waits comes through the worker', async () => {
    const dir = project('queue');
    expect((await cli(dir, ['run', 'fails'])).code).toBe(2);
    const holder = await cli(dir, ['run', 'held', '--background', '--json']);
    expect(holder.code, holder.stderr).toBe(0);
    const holderId = (JSON.parse(holder.stdout) as { instance_id: string }).instance_id;
    // Its action runs once it holds the scope: then `queue list` has it to show.
    await waitForRunEvent(dir, holderId, 'action_start');
    await waitFor(
      'the held run to hold the scope',
      async () => (await cli(dir, ['queue', 'list', '--json'])).stdout.includes(holderId),
      60_000,
      250,
    );
    const child = spawn(process.execPath, [BIN, 'run', 'parent', '--queue'], { cwd: dir, env: server.env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await waitFor('the queue note', () => err.includes(`behind ${holderId} (--queue)`), 60_000, 50);
    writeFileSync(join(dir, 'held.go'), '');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, err).toBe(0);
    expect(followedByWorker(dir, idIn(out))).toBe(true);
    expect(out).toContain('Loop completed: done');
  }, 180_000);

  it('Ctrl-C stops the run through the worker: the action is killed, the run recorded as stopped, exit 6', async () => {
    const dir = project('interrupt');
    expect((await cli(dir, ['run', 'fails'])).code).toBe(2);
    const run = command(dir, ['run', 'long']);
    await run.waitFor('the action to be shown', () => run.out().includes(SLEEP), 60_000, 50);
    // Interrupted while the action runs: its sleep is a live process.
    await run.waitFor('the action to run', () => sleeping() > 0, 60_000, 50);
    const id = idIn(run.out());
    await run.waitFor('the worker to follow it', () => followedByWorker(dir, id), 60_000, 50);
    run.child.kill('SIGINT');
    expect(await run.exited, run.err()).toBe(6);
    expect(run.out()).toContain('Loop stopped in state a');
    expect(workerLog(dir)).toContain(`${id}: cancelled for its follower`);
    await waitFor('the action to be killed', () => sleeping() === 0, 30_000, 50);
  }, 180_000);

  it('the worker killed mid-run: the command brings the checkout’s worker back and follows the run to its end, each line once', async () => {
    const dir = project('killed');
    expect((await cli(dir, ['run', 'fails'])).code).toBe(2); // starts the worker
    const killed = workerPid(dir)!;
    // A short heartbeat timeout: the killed attempt of b is retried on the next worker within seconds.
    const run = command(dir, ['run', 'killed'], { ...server.env, LL_HEARTBEAT_TIMEOUT_S: '8' });
    const starts = () => (existsSync(join(dir, 'killed-b.log')) ? readFileSync(join(dir, 'killed-b.log'), 'utf8') : '');
    await run.waitFor('b to run', () => starts().length > 0, 60_000, 50);
    await run.waitFor('the worker to follow it', () => followedByWorker(dir, idIn(run.out())), 60_000, 50);
    process.kill(killed, 'SIGKILL');
    // Nothing but the command brings a worker back for the checkout; the run needs one to go on.
    await run.waitFor('a new worker', () => (workerPid(dir) ?? killed) !== killed, 60_000, 50);
    await run.waitFor('b to run again on it', () => starts().split('\n').filter(Boolean).length === 2, 60_000, 50);
    writeFileSync(join(dir, 'killed.go'), '');
    expect(await run.exited, run.err()).toBe(0);
    const out = run.out();
    expect(out).toContain('Loop completed: done');
    // Each action's line once: the display went on from where the worker's stream broke.
    for (const line of ['echo shown-a', 'echo start >> killed-b.log', 'Loop completed'])
      expect(out.split(line).length - 1, `${line} in:\n${out}`).toBe(1);
  }, 180_000);
});

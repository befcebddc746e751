/**
 * The action spawner (activities/action-spawner.ts): shell actions started by a small forked
 * process give exactly the result the worker's own runProcess gives — environment, output capture,
 * secret masking, exit codes, signals, timeouts, cancellation, stragglers, spawn failures — and the
 * spawner goes when idle or when its worker's channel closes, taking running actions' groups with it.
 * Runs the built package (dist/): the spawner's entry is compiled JavaScript.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ActionResult } from '../../fsm/types.js';
import type { BurstOutcome } from '../../fsm/run/burst.js';
import type { RunBurstInput } from '../../workflows/activity-types.js';
import { waitFor } from '../support/processes.js';
import { DIST, burstInputOf, fromDist } from '../support/dist-burst.js';

const { ActionSpawner } =
  await fromDist<typeof import('../../activities/action-spawner.js')>('activities/action-spawner.js');
const { runProcess } = await fromDist<typeof import('../../activities/process.js')>('activities/process.js');
const { burstRunner: makeRunBurst } =
  await fromDist<typeof import('../../activities/run-burst.js')>('activities/run-burst.js');
const ENTRY = join(DIST, 'activities', 'spawner-main.js');

const dir = mkdtempSync(join(tmpdir(), 'll-spawner-'));
const spawner = new ActionSpawner(ENTRY);
afterAll(() => {
  spawner.close();
  rmSync(dir, { recursive: true, force: true });
});

function opts(script: string, extra: Partial<Parameters<typeof runProcess>[0]> = {}): Parameters<typeof runProcess>[0] {
  return {
    file: 'bash',
    args: ['-c', script],
    cwd: dir,
    env: { LL_V1: 'a value\nover two lines', LL_E1: 'the-secret-value' },
    timeoutMs: 10_000,
    logPath: join(dir, 'out.log'),
    secrets: [Buffer.from('the-secret-value')],
    tailBytes: 1024,
    ...extra,
  };
}

/** Everything but the clock and the paths that name a pid. */
function comparable(r: ActionResult): unknown {
  const { duration_ms: _, ...rest } = r;
  return rest;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the action spawner', () => {
  it.each([
    ['environment', 'env | sort | grep -v -e "^_=" -e "^SHLVL="; echo "shlvl $SHLVL"'],
    ['masked output and stderr', 'echo "out the-secret-value"; echo "err $LL_E1" >&2; printf "%s" "$LL_V1"'],
    ['exit code', 'echo partial; exit 7'],
    ['death by a signal', 'kill -TERM $$'],
    ['a straggler holding the pipes', 'sleep 5 & echo started'],
    ['a cut output and its log file', 'head -c 5000 /dev/zero | tr "\\0" x; echo; echo end'],
    ['a process group of its own', 'test "$(ps -o pgid= -p $$ | tr -d " ")" = "$$" && echo own-group'],
  ])('gives runProcess’s result: %s', async (_what, script) => {
    const here = await runProcess(opts(script));
    const there = await spawner.launch(opts(script));
    expect(comparable(there)).toEqual(comparable(here));
  });

  it('times out and is cancelled as runProcess is', async () => {
    expect(comparable(await spawner.launch(opts('sleep 20', { timeoutMs: 300 })))).toEqual(
      comparable(await runProcess(opts('sleep 20', { timeoutMs: 300 }))),
    );
    const stop = new AbortController();
    const pending = spawner.launch(opts('sleep 20', { signal: stop.signal }));
    setTimeout(() => stop.abort(), 300);
    expect(await pending).toMatchObject({ exit_code: 130, error: 'cancelled' });
  });

  it('throws the SpawnError runProcess throws for a missing working directory', async () => {
    const missing = opts('true', { cwd: join(dir, 'gone') });
    await expect(spawner.launch(missing)).rejects.toMatchObject({ name: 'SpawnError', reason: 'cwd' });
  });

  it('throws the SpawnError runProcess throws for arguments the OS refuses (E2BIG), and for a NUL byte', async () => {
    const huge = opts(`: ${'x'.repeat(200_000)}`);
    const here = await runProcess(huge).catch((e: unknown) => e);
    expect(here).toMatchObject({ name: 'SpawnError', reason: 'other', code: 'E2BIG' });
    await expect(spawner.launch(huge)).rejects.toMatchObject({ name: 'SpawnError', reason: 'other', code: 'E2BIG' });
    const nul = opts('echo a\0b');
    await expect(runProcess(nul)).rejects.toMatchObject({ name: 'SpawnError', reason: 'other' });
    await expect(spawner.launch(nul)).rejects.toMatchObject({ name: 'SpawnError', reason: 'other' });
  });

  it('stops a running action’s group when its worker lets it go, and exits', async () => {
    const own = new ActionSpawner(ENTRY);
    const pidFile = join(dir, 'pid');
    const running = own.launch(opts(`echo $$ > ${pidFile}; sleep 30`));
    await waitFor(
      'the action to start',
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
      20_000,
    );
    const actionPid = Number(readFileSync(pidFile, 'utf8'));
    const spawnerPid = own.pid!;
    own.close();
    await expect(running).rejects.toThrow(/spawner went away/);
    await waitFor('the action and the spawner to end', () => !alive(actionPid) && !alive(spawnerPid), 20_000);
  });

  it('an action of its own runs in the worker until the spawner is up, then through it', async () => {
    const own = new ActionSpawner(ENTRY);
    try {
      // Nothing waits for the spawner to start: the first action is forked here, and starts it.
      const first = await own.launchWhenReady(opts('echo $PPID'));
      expect(Number(first.output.trim())).toBe(process.pid);
      expect(own.pid).toBeGreaterThan(0);
      let parent = process.pid;
      await waitFor(
        'an action started by the spawner',
        async () => {
          parent = Number((await own.launchWhenReady(opts('echo $PPID'))).output.trim());
          return parent !== process.pid;
        },
        20_000,
      );
      expect(parent).toBe(own.pid);
      const script = 'echo out; echo err >&2; exit 4';
      expect(comparable(await own.launchWhenReady(opts(script)))).toEqual(comparable(await runProcess(opts(script))));
    } finally {
      own.close();
    }
  });

  it('a spawner killed before it is up is started again for the actions waiting; one that cannot start leaves them to the worker', async () => {
    const own = new ActionSpawner(ENTRY);
    try {
      const waiting = own.launch(opts('echo $PPID'));
      process.kill(own.pid!, 'SIGKILL');
      const parent = Number((await waiting).output.trim());
      expect(parent).not.toBe(process.pid);
      expect(parent).toBe(own.pid);
    } finally {
      own.close();
    }
    const dead = join(dir, 'dead-spawner.mjs');
    writeFileSync(dead, 'process.exit(3);\n');
    const never = new ActionSpawner(dead);
    try {
      expect(Number((await never.launch(opts('echo $PPID'))).output.trim())).toBe(process.pid);
      expect(never.up).toBe(false);
    } finally {
      never.close();
    }
  });

  it('goes once idle', async () => {
    const own = new ActionSpawner(ENTRY, 200);
    expect((await own.launch(opts('true'))).exit_code).toBe(0);
    const pid = own.pid!;
    await waitFor('the idle spawner to exit', () => !alive(pid), 20_000);
    // And comes back for the next action.
    expect((await own.launch(opts('exit 3'))).exit_code).toBe(3);
    own.close();
  });

  it('stays while the worker runs an action itself (a prompt’s agent, longer than the idle time), and goes once that ends', async () => {
    const own = new ActionSpawner(ENTRY, 50);
    expect((await own.launch(opts('true'))).exit_code).toBe(0);
    const pid = own.pid!;
    const release = own.hold();
    // An agent running in the worker: far longer than the spawner's idle time.
    expect((await runProcess(opts('sleep 0.5'))).exit_code).toBe(0);
    expect(own.pid).toBe(pid);
    expect(alive(pid)).toBe(true);
    release();
    release(); // a second release changes nothing
    await waitFor('the idle spawner to exit', () => !alive(pid), 20_000);
    own.close();
  });

  it('starts without NODE_EXTRA_CA_CERTS (Node would parse the file as it starts); its actions have it as their own environment has it, never the worker’s', async () => {
    const certs = join(dir, 'extra-ca.pem');
    const before = process.env.NODE_EXTRA_CA_CERTS;
    process.env.NODE_EXTRA_CA_CERTS = 'the-workers-own.pem';
    const own = new ActionSpawner(ENTRY);
    try {
      const script = 'echo "certs=$NODE_EXTRA_CA_CERTS"; env | grep -c "^LL_SPAWNER_" || true';
      const withCerts = opts(script, { env: { ...opts(script).env, NODE_EXTRA_CA_CERTS: certs } });
      const there = await own.launch(withCerts);
      expect(there.output).toBe(`certs=${certs}\n0\n`);
      expect(comparable(there)).toEqual(comparable(await runProcess(withCerts)));
      // An action whose environment has none gets none, whatever the worker's is.
      const without = await own.launch(opts(script));
      expect(without.output).toBe('certs=\n0\n');
      expect(comparable(without)).toEqual(comparable(await runProcess(opts(script))));
      // The environment the spawner's Node started with.
      const started = readFileSync(`/proc/${own.pid}/environ`, 'utf8').split('\0');
      expect(started.filter((v) => v.startsWith('NODE_EXTRA_CA_CERTS='))).toEqual([]);
    } finally {
      own.close();
      if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = before;
    }
  });

  it('lists a checkout’s files for tamper_guard with its own git once it is up, as the worker would; not a checkout: undefined (walked)', async () => {
    const repo = join(dir, 'listed');
    mkdirSync(join(repo, 'tests'), { recursive: true });
    const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, '.gitignore'), 'build/\n');
    writeFileSync(join(repo, 'tracked.py'), '');
    git('add', '.');
    writeFileSync(join(repo, 'tests', 'test_new.py'), '');
    mkdirSync(join(repo, 'build'));
    writeFileSync(join(repo, 'build', 'ignored.py'), '');
    // A `git` first on the spawner's PATH that notes which process started it.
    const bin = join(dir, 'git-bin');
    const who = join(dir, 'git-callers');
    mkdirSync(bin, { recursive: true });
    const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho $PPID >> ${who}\nexec ${realGit} "$@"\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    const own = new ActionSpawner(ENTRY);
    try {
      // Not up yet: listed here, by this process.
      const here = await own.listFiles(repo);
      expect(here?.sort()).toEqual(['.gitignore', 'tests/test_new.py', 'tracked.py']);
      expect(readFileSync(who, 'utf8').trim().split('\n')).toEqual([String(process.pid)]);
      expect((await own.launch(opts('true'))).exit_code).toBe(0);
      expect(own.up).toBe(true);
      expect((await own.listFiles(repo))?.sort()).toEqual(here?.sort());
      expect(readFileSync(who, 'utf8').trim().split('\n')).toEqual([String(process.pid), String(own.pid)]);
      expect(await own.listFiles(dir)).toBeUndefined();
    } finally {
      own.close();
      process.env.PATH = path;
    }
  });
});

/** A burst's input: the loop's first action on, within `bounds`, before `deadline_ms`. */
function burstInput(loop: Record<string, unknown>, extra: Partial<RunBurstInput> = {}): RunBurstInput {
  return burstInputOf(
    { name: 'burst', description: 'a burst', ...loop },
    { instanceId: 'burst-test', cwd: dir, mask_env: ['LL_BURST_SECRET'] },
    extra,
  );
}

describe('a burst in the spawner', () => {
  const env = { ...process.env, LL_BURST_SECRET: 'the-burst-secret' };
  const inSpawner = makeRunBurst({ env }, { spawner });
  const inWorker = makeRunBurst({ env }, {});
  const LOOP = {
    initial: 'a',
    default_timeout: 10,
    max_iterations: 10,
    states: {
      a: { action: 'echo "key ${env.LL_BURST_SECRET} n=${state.iteration}"', capture: 'k', next: 'b' },
      b: {
        action: 'echo "saw ${captured.k.output}"; echo "to stderr $LL_BURST_SECRET" >&2; exit ${state.iteration}',
        on_yes: 'a',
        on_no: 'c',
      },
      c: { action: 'head -c 3000 /dev/zero | tr "\\0" y; exit 0', next: 'done' },
      done: { terminal: true },
    },
  };

  const PARENT = {
    initial: 'a',
    default_timeout: 10,
    states: { a: { action: 'echo $PPID', next: 'done' }, done: { terminal: true } },
  };
  const parentOf = async (run: typeof inSpawner) => Number((await run(burstInput(PARENT))).facts[0]!.result.output);

  it('runs in the spawner once it is up; until then in the worker, which starts it for the next', async () => {
    await spawner.launch(opts('true'));
    expect(await parentOf(inSpawner)).toBe(spawner.pid);
    expect(await parentOf(inWorker)).toBe(process.pid);
    const own = new ActionSpawner(ENTRY);
    try {
      const run = makeRunBurst({ env }, { spawner: own });
      expect(await parentOf(run)).toBe(process.pid);
      expect(own.pid).toBeGreaterThan(0);
      let parent = process.pid;
      await waitFor(
        'a burst run by the spawner',
        async () => {
          parent = await parentOf(run);
          return parent !== process.pid;
        },
        20_000,
      );
      expect(parent).toBe(own.pid);
    } finally {
      own.close();
    }
  });

  it('gives the facts the same burst gives in the worker: routes, captured values, masked output, exit codes', async () => {
    const there = await inSpawner(burstInput(LOOP));
    const here = await inWorker(burstInput(LOOP));
    const facts = (o: BurstOutcome) => o.facts.map((f) => comparable(f.result));
    expect(facts(there)).toEqual(facts(here));
    expect(there.facts.map((f) => f.result.exit_code)).toEqual([0, 1, 0]);
    expect(there.facts[0]!.result.output).toBe('key *** n=1\n');
    expect(there.facts[1]!.result.stderr).toBe('to stderr ***\n');
    expect(there.facts[2]!.result.output).toBe('y'.repeat(3000));
    expect(there).not.toHaveProperty('deadline_at');
  });

  it('stops at the loop deadline, the running action killed and its result dropped', async () => {
    const loop = { ...LOOP, states: { ...LOOP.states, c: { action: 'sleep 30', next: 'done' } } };
    for (const run of [inSpawner, inWorker]) {
      const deadline = Date.now() + 1500;
      const started = performance.now();
      const out = await run(burstInput(loop, { deadline_ms: deadline }));
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(out.facts.map((f) => f.result.exit_code)).toEqual([0, 1]);
      expect(out.deadline_at).toBeGreaterThanOrEqual(deadline);
    }
  });

  it('a spawner that goes away mid-burst keeps the facts before it; the action it ran then is stopped and runs again', async () => {
    const own = new ActionSpawner(ENTRY);
    // Up first: a burst that finds no spawner up runs in the worker.
    await own.launch(opts('true'));
    const pidFile = join(dir, 'burst-pid');
    const loop = {
      ...LOOP,
      states: { ...LOOP.states, b: { action: `echo $$ > ${pidFile}; sleep 30`, next: 'done' } },
    };
    const running = makeRunBurst({ env }, { spawner: own })(burstInput(loop));
    await waitFor(
      'the second action to start',
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
      20_000,
    );
    const actionPid = Number(readFileSync(pidFile, 'utf8'));
    // Killed, as a crash ends it: what it sent before is still read.
    process.kill(own.pid!, 'SIGKILL');
    const out = await running;
    expect(out.facts.map((f) => f.result.output)).toEqual(['key *** n=1\n']);
    expect(out).not.toHaveProperty('stopped_at');
    await waitFor('the stopped action to end', () => !alive(actionPid), 20_000);
    // The burst's first action: its fault is the burst's, retried as any.
    const first = new ActionSpawner(ENTRY);
    await first.launch(opts('true'));
    const again = makeRunBurst({ env }, { spawner: first })(burstInput({ ...loop, initial: 'b' }));
    await waitFor(
      'the action to start again',
      () => readFileSync(pidFile, 'utf8').trim() !== String(actionPid),
      20_000,
    );
    process.kill(first.pid!, 'SIGKILL');
    await expect(again).rejects.toThrow(/spawner went away/);
    own.close();
    first.close();
  });

  it('a first action that cannot start fails the burst as the worker’s own would (not retried)', async () => {
    const gone = (i: RunBurstInput): RunBurstInput => ({ ...i, action: { ...i.action, cwd: join(dir, 'gone') } });
    for (const run of [inSpawner, inWorker])
      await expect(run(gone(burstInput(LOOP)))).rejects.toMatchObject({
        type: 'ActionSetupError',
        nonRetryable: true,
        message: expect.stringMatching(/working directory .*gone does not exist/),
      });
  });
});

/** The URLs of the modules that importing `entry` (a file of dist/) loads, in a fresh Node. */
function modulesLoadedBy(entry: string, name: string): string[] {
  // The hook writes each module's URL synchronously, before the module loads: the file is
  // complete once the import has resolved.
  const list = join(dir, name);
  const script = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(
        'import { appendFileSync } from "node:fs";' +
        'export async function load(u, c, n) { appendFileSync(process.env.LL_TEST_LOADED, u + String.fromCharCode(10)); return n(u, c); }'));
      await import(${JSON.stringify(entry)});
    `;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, LL_TEST_LOADED: list },
  });
  expect(out.status, out.stderr).toBe(0);
  return readFileSync(list, 'utf8').split('\n');
}

describe('an idle worker’s modules', () => {
  it('the activities load no LLM provider SDK and no MCP SDK until a run needs one', () => {
    const loaded = modulesLoadedBy(join(DIST, 'activities', 'index.js'), 'loaded.txt');
    expect(loaded.some((u) => u.includes('/activities/run-action.js'))).toBe(true);
    expect(loaded.filter((u) => /@anthropic-ai|node_modules\/openai|@modelcontextprotocol/.test(u))).toEqual([]);
  });

  it('the action spawner loads no package: every action it starts forks what it holds', () => {
    const loaded = modulesLoadedBy(ENTRY, 'spawner-loaded.txt');
    expect(loaded.some((u) => u.includes('/activities/burst-loop.js'))).toBe(true);
    expect(loaded.filter((u) => u.includes('/node_modules/'))).toEqual([]);
  });

  it('the code that starts an action loads no process library (every fork copies what its process holds)', () => {
    const loaded = modulesLoadedBy(join(DIST, 'activities', 'process.js'), 'process-loaded.txt');
    expect(loaded.some((u) => u.includes('/activities/process.js'))).toBe(true);
    expect(loaded.filter((u) => u.includes('/node_modules/'))).toEqual([]);
  });
});

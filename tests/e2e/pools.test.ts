/**
 * Worker pools with host affinity, end to end: two `ll-loop worker --pool` processes on this
 * machine stand for two hosts (each its own LL_HOST_ID and data dir), on an embedded dev server of
 * this file's own. Pinned runs' actions run only in their checkout's worker; portable runs work in
 * a checkout their pool worker prepares and move to the other host when theirs dies; `--worktree`
 * works on a branch of its own. Real processes, real git, real shell actions.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCliBinary } from '../support/cli.js';
import { freePort, killIfAlive, waitFor } from '../support/processes.js';

let base: string;
let env: NodeJS.ProcessEnv;
let port: number;
let connection: Connection | undefined;
const children = new Set<ChildProcess>();
const checkouts: string[] = [];

interface PoolWorker {
  child: ChildProcess;
  host: string;
  dataDir: string;
  out: { text: string };
}

function poolWorker(pool: string, host: string): PoolWorker {
  const dataDir = join(base, `data-${pool}-${host}`);
  const child = spawn(process.execPath, [BIN, 'worker', '--pool', pool], {
    cwd: base,
    env: { ...env, LL_HOST_ID: host, LL_WORKER_DATA_DIR: dataDir },
  });
  children.add(child);
  const out = { text: '' };
  child.stdout!.on('data', (d: Buffer) => (out.text += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out.text += d.toString()));
  child.on('exit', () => children.delete(child));
  return { child, host, dataDir, out };
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
}

/** A git repository with `.loops/<name>.yaml`, committed (its run files ignored). */
function checkout(name: string, loops: Record<string, string>): string {
  const dir = join(base, name);
  mkdirSync(join(dir, '.loops'), { recursive: true });
  for (const [loop, yaml] of Object.entries(loops)) writeFileSync(join(dir, '.loops', `${loop}.yaml`), yaml);
  writeFileSync(join(dir, '.gitignore'), '.loops/.running/\n.loops/.worker/\n');
  git(dir, 'init', '-q');
  git(dir, '-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '-A');
  git(dir, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'loops');
  checkouts.push(dir);
  return dir;
}

const cli = (dir: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
  runCliBinary(args, { cwd: dir, env: { ...env, ...extra } });

async function client(): Promise<Client> {
  connection ??= await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: '60s' });
  return new Client({ connection });
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

function checkoutWorkerPid(dir: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, '.loops', '.worker', 'worker.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

/**
 * Shell that prints the pid of the worker that ran the action, and where: bash's parent, or the
 * parent of the worker's action spawner when that started it (activities/action-spawner.ts).
 */
const WHO_AND_WHERE = 'p=$PPID; grep -qs spawner-main /proc/$p/cmdline && p=$(ps -o ppid= -p $p); echo $p \\"$PWD\\"';

/**
 * a (notes who ran it and where) → b (held until `<gate>` exists; notes each start) → c. Paths
 * are absolute: a portable run works in another directory.
 */
function heldLoop(name: string, notes: string, gate: string): string {
  return `name: ${name}
description: notes where its actions run
initial: a
states:
  a:
    action: "${WHO_AND_WHERE} >> ${notes}"
    timeout: 600
    next: b
  b:
    action: "${WHO_AND_WHERE} >> ${notes}.b; while [ ! -e ${gate} ]; do sleep 0.05; done"
    timeout: 600
    next: c
  c:
    action: "${WHO_AND_WHERE} >> ${notes}; echo work > result.txt"
    timeout: 600
    terminal: true
`;
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'll-loop-pools-'));
  mkdirSync(join(base, '.loops'));
  port = await freePort();
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    LL_TEMPORAL_PORT: String(port),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    LL_TEMPORAL_DATA_DIR: join(base, '.loops', '.temporal'),
    LL_STATE_DIR: join(base, 'state'),
    LL_HOST_NOTICE_S: '3',
    // A dead host's running action is noticed by its heartbeat timeout: 8 s here, not 30.
    LL_HEARTBEAT_TIMEOUT_S: '8',
    NO_COLOR: '1',
  };
  const started = await cli(base, ['server', 'start']);
  expect(started.code, started.stderr).toBe(0);
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of checkouts) {
    killIfAlive(checkoutWorkerPid(dir));
  }
  await connection?.close();
  await cli(base, ['server', 'stop']);
});

describe('pinned runs', () => {
  it('kill one of two pool workers mid-run: every run finishes, and every action ran in its checkout, by its checkout worker', async () => {
    const a = poolWorker('pinned', 'hostA');
    const b = poolWorker('pinned', 'hostB');
    await waitFor(
      'both pool workers to poll',
      () => a.out.text.includes('serves pool') && b.out.text.includes('serves pool'),
      30_000,
    );
    const gate = join(base, 'pinned.go');
    const notes = join(base, 'pinned-notes');
    const dir = checkout('pinned', { held: heldLoop('held', notes, gate) });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const started = await cli(dir, ['run', 'held', '--pool', 'pinned', '--background', '--json', '--no-lock']);
      expect(started.code, started.stderr).toBe(0);
      ids.push((JSON.parse(started.stdout) as { instance_id: string }).instance_id);
    }
    await waitFor('every run to reach b', () => lines(`${notes}.b`).length === 4, 60_000);
    a.child.kill('SIGKILL');
    writeFileSync(gate, '');
    const c = await client();
    for (const id of ids)
      expect(await c.workflow.getHandle(id).result()).toMatchObject({ terminated_by: 'terminal', final_state: 'c' });
    const worker = checkoutWorkerPid(dir)!;
    const ran = [...lines(notes), ...lines(`${notes}.b`)];
    expect(ran).toHaveLength(4 * 3);
    for (const line of ran) expect(line).toBe(`${worker} ${dir}`);
    expect((await c.workflow.getHandle(ids[0]!).describe()).taskQueue).toBe('ll-loop.pool.pinned');
    b.child.kill('SIGTERM');
  }, 180_000);

  it('its checkout worker gone: the run waits and says so (never runs an action elsewhere), then finishes once the worker is back', async () => {
    const pool = poolWorker('waits', 'hostA');
    await waitFor('the pool worker to poll', () => pool.out.text.includes('serves pool'), 30_000);
    const gate = join(base, 'waits.go');
    writeFileSync(gate, '');
    const notes = join(base, 'waits-notes');
    const dir = checkout('waits', {
      held: heldLoop('held', notes, gate)
        .replace('initial: a', 'initial: first')
        .replace('states:\n', 'states:\n  first:\n    action: "sleep 2.5151"\n    timeout: 600\n    next: a\n'),
    });
    const started = await cli(dir, ['run', 'held', '--pool', 'waits', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    const workerPid = checkoutWorkerPid(dir)!;
    process.kill(workerPid, 'SIGKILL'); // during `first`: its action dies, and `a` finds no worker
    const handle = (await client()).workflow.getHandle(id);
    await waitFor(
      'status to say what the run waits for',
      async () =>
        String(
          ((await handle.query('status').catch(() => ({}))) as { waiting_for?: string }).waiting_for ?? '',
        ).includes('never runs the action elsewhere'),
      90_000,
      500,
    );
    expect(lines(notes)).toEqual([]);
    expect((await cli(dir, ['list'])).code).toBe(0); // any command brings the checkout worker back
    expect(await handle.result()).toMatchObject({ terminated_by: 'terminal', final_state: 'c' });
    const revived = checkoutWorkerPid(dir)!;
    expect(revived).not.toBe(workerPid);
    for (const line of [...lines(notes), ...lines(`${notes}.b`)]) expect(line).toBe(`${revived} ${dir}`);
    pool.child.kill('SIGTERM');
  }, 180_000);

  it('a pool with no worker: `run --pool` says so at once and the run waits', async () => {
    const dir = checkout('lonely', {
      quick:
        'name: quick\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
    });
    const started = await cli(dir, ['run', 'quick', '--pool', 'nobody', '--background', '--json']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stderr).toContain(
      'no worker serves pool nobody yet; the run waits until one does. Start one with: ll-loop worker --pool nobody',
    );
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    // "At once": the command returned, note given, while its run had not made a single step — no
    // worker took a workflow task of it. (How fast it returns is the bench's to measure: a bound
    // on the wall clock here failed at 10.5 s against 10 s on a loaded two-core CI machine.)
    const handle = (await client()).workflow.getHandle(id);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const history = await handle.fetchHistory();
    expect(history.events?.some((e) => e.workflowTaskStartedEventAttributes)).toBe(false);
    // Nothing runs it, so nothing can record a graceful stop: end it outright.
    expect((await cli(dir, ['stop', id, '--force'])).code).toBe(0);
  }, 60_000);
});

describe('portable runs', () => {
  it('--checkout git: the first pool worker works in its own clone; when its host dies the other takes over with a fresh checkout (host_change)', async () => {
    const a = poolWorker('portable', 'hostA');
    const b = poolWorker('portable', 'hostB');
    await waitFor(
      'both pool workers to poll',
      () => a.out.text.includes('serves pool') && b.out.text.includes('serves pool'),
      30_000,
    );
    const gate = join(base, 'portable.go');
    const notes = join(base, 'portable-notes');
    const dir = checkout('portable', { held: heldLoop('held', notes, gate) });
    const started = await cli(dir, [
      'run',
      'held',
      '--pool',
      'portable',
      '--checkout',
      'git',
      '--background',
      '--json',
    ]);
    expect(started.code, started.stderr).toBe(0);
    const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
    await waitFor('b to start', () => lines(`${notes}.b`).length === 1, 60_000);
    const [, firstDir] = lines(`${notes}.b`)[0]!.split(' ');
    const first = firstDir!.startsWith(a.dataDir) ? a : b;
    const other = first === a ? b : a;
    expect(firstDir!.startsWith(first.dataDir)).toBe(true);
    expect(git(firstDir!, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(`ll-loop/${id}`);
    first.child.kill('SIGKILL');
    await waitFor('b to run again on the other host', () => lines(`${notes}.b`).length === 2, 90_000, 200);
    writeFileSync(gate, '');
    expect(await (await client()).workflow.getHandle(id).result()).toMatchObject({
      terminated_by: 'terminal',
      final_state: 'c',
    });
    const [, secondDir] = lines(`${notes}.b`)[1]!.split(' ');
    expect(secondDir!.startsWith(other.dataDir)).toBe(true);
    expect(lines(notes).at(-1)!.split(' ')[1]).toBe(secondDir);
    expect(readFileSync(join(secondDir!, 'result.txt'), 'utf8').trim()).toBe('work'); // kept: it holds a change
    expect(existsSync(join(dir, 'result.txt'))).toBe(false); // the user's checkout was never touched
    const events = readFileSync(join(dir, '.loops', '.running', `${id}.events.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; seq: number; from_host?: string; to_host?: string });
    const moves = events.filter((e) => e.event === 'host_change');
    expect(moves).toEqual([
      expect.objectContaining({ to_host: first.host }),
      expect.objectContaining({ from_host: first.host, to_host: other.host }),
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    other.child.kill('SIGTERM');
  }, 240_000);

  it('a portable run of a repository with uncommitted changes is refused with the fix', async () => {
    const dir = checkout('dirty', {
      quick:
        'name: quick\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
    });
    writeFileSync(join(dir, 'new-file.txt'), 'not committed');
    for (const args of [['--pool', 'any', '--checkout', 'git'], ['--worktree']]) {
      const refused = await cli(dir, ['run', 'quick', ...args]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('has uncommitted changes a portable run would not see');
      expect(refused.stderr).toContain('untracked new-file.txt');
      expect(refused.stderr).toContain('fix: commit them');
    }
  });

  it('--worktree: the run works on branch ll-loop/<id> in a worktree of its own, kept when it holds work and removed when not', async () => {
    const dir = checkout('worktree', {
      changes:
        'name: changes\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "pwd > where.txt"\n    next: done\n  done:\n    terminal: true\n',
      clean:
        'name: clean\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "pwd"\n    capture: where\n    next: done\n  done:\n    terminal: true\n',
    });
    const changed = await cli(dir, ['run', 'changes', '--worktree', '--json']);
    expect(changed.code, changed.stderr).toBe(0);
    const id = (JSON.parse(changed.stdout) as { instance_id: string }).instance_id;
    const worktree = join(base, 'state', 'worktrees', id);
    expect(readFileSync(join(worktree, 'where.txt'), 'utf8').trim()).toBe(worktree);
    expect(git(dir, 'branch', '--list', `ll-loop/${id}`)).toContain(`ll-loop/${id}`);
    expect(existsSync(join(dir, 'where.txt'))).toBe(false);
    const clean = await cli(dir, ['run', 'clean', '--worktree', '--json']);
    expect(clean.code, clean.stderr).toBe(0);
    const out = JSON.parse(clean.stdout) as { instance_id: string; captured: { where: { output: string } } };
    expect(out.captured.where.output).toBe(join(base, 'state', 'worktrees', out.instance_id));
    expect(existsSync(out.captured.where.output)).toBe(false);
    expect(git(dir, 'branch', '--list', `ll-loop/${out.instance_id}`)).toBe('');
  }, 120_000);

  it('--worktree: a kept worktree is named at the end (path, branch, the commands to merge or drop it), and the commands work', async () => {
    const edit = (name: string) =>
      `name: ${name}\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "echo ${name} > ${name}.txt"\n    next: done\n  done:\n    terminal: true\n`;
    const dir = checkout('kept', {
      merged: edit('merged'),
      dropped: edit('dropped'),
      clean:
        'name: clean\ndescription: d\ninitial: a\nstates:\n  a:\n    action: "true"\n    next: done\n  done:\n    terminal: true\n',
    });
    const gitEnv = {
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    };
    const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { cwd: dir, env: { ...process.env, ...gitEnv } });

    const json = await cli(dir, ['run', 'merged', '--worktree', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as { instance_id: string; worktree: Record<string, unknown> };
    const id = result.instance_id;
    const path = join(base, 'state', 'worktrees', id);
    expect(result.worktree).toMatchObject({
      kept: true,
      path,
      branch: `ll-loop/${id}`,
      commits: 0,
      uncommitted: ['merged.txt'],
    });
    const { merge } = result.worktree as { merge: string[] };
    for (const cmd of merge) sh(cmd);
    expect(readFileSync(join(dir, 'merged.txt'), 'utf8')).toBe('merged\n');

    const human = await cli(dir, ['run', 'dropped', '--worktree']);
    expect(human.code, human.stderr).toBe(0);
    const shown =
      /Worktree kept: it holds the run's work \(uncommitted: dropped\.txt\)\.\n  path: +(\S+)\n  branch: +(\S+)\n[\s\S]*  drop: +(.+)\n/.exec(
        human.stdout,
      );
    expect(shown, human.stdout).not.toBeNull();
    const [, keptPath, branch, drop] = shown!;
    expect(existsSync(join(keptPath!, 'dropped.txt'))).toBe(true);
    expect(human.stdout).toContain(`merge:   git -C ${keptPath} add -A && git -C ${keptPath} commit -m`);
    expect(human.stdout).toContain(`\n           git merge ${branch}\n`);
    sh(drop!);
    expect(existsSync(keptPath!)).toBe(false);
    expect(git(dir, 'branch', '--list', branch!)).toBe('');

    const clean = await cli(dir, ['run', 'clean', '--worktree']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).not.toContain('Worktree kept');
    const removed = await cli(dir, ['run', 'clean', '--worktree', '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    const none = JSON.parse(removed.stdout) as { instance_id: string };
    expect(none).toMatchObject({ worktree: { kept: false, branch: `ll-loop/${none.instance_id}` } });
  }, 180_000);
});

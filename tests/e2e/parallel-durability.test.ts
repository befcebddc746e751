/**
 * A fan-out (parallel state) under crashes, end to end with the built binary on an embedded dev
 * server of this file's own (free ports, its own data directory, a temporary project):
 * - SIGKILL of the checkout's worker, and separately of the Temporal server, in the middle of a
 *   fan-out (the worker's also of a quick loop's items, run in the parent's lanes): every item runs to its end exactly once (each action appends its start and end to a
 *   file of its item), the join counts each item once, and `max_workers` is never exceeded
 *   (checked from the actions' own start and end times);
 * - `ll-loop stop <parent>` stops every child and its process tree.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { freePort, livePids, liveProcesses, pidAlive, waitFor } from '../support/processes.js';

let dir: string;
let dataDir: string;
let env: NodeJS.ProcessEnv;
let port: number;
let connection: Connection | undefined;

const cli = (args: string[]) => runCliBinary(args, { cwd: dir, env });

const serverPid = (): number => Number(readFileSync(join(dataDir, 'server.pid'), 'utf8').trim());
const workerPid = (): number =>
  (JSON.parse(readFileSync(join(dir, '.loops', '.worker', 'worker.json'), 'utf8')) as { pid: number }).pid;

async function client(): Promise<Client> {
  connection ??= await Connection.connect({ address: `127.0.0.1:${port}` });
  return new Client({ connection });
}

/**
 * An item's loop: its action writes "start <ns>" and "end <ns>" to marks/<tag>/<item>, one line
 * each per run, sleeping `secs` between; a `sleep` tagged with `marker` so a test can find it.
 */
function work(name: string, secs: number | string, marker: string, quick = false): string {
  return `name: ${name}
description: one item
initial: run
parameters:
  item: { type: string, required: true }
states:
  run:
    action: |
      echo "start $(date +%s%N)" >> "marks/${name}/\${context.item}"
      echo "item \${context.item} ran"
      sleep ${secs} # ${marker}
      echo "end $(date +%s%N)" >> "marks/${name}/\${context.item}"
    next: done${quick ? '\n    timeout: 10' : ''}
  done: { terminal: true }
`;
}

function fan(name: string, loop: string, items: string[], maxWorkers: number): string {
  return `name: ${name}
description: fan-out over items
initial: fix_all
states:
  fix_all:
    parallel:
      items: ${JSON.stringify(items)}
      loop: ${loop}
      with: { item: "\${item}" }
      max_workers: ${maxWorkers}
    on_yes: done
    on_no: gave_up
  done: { terminal: true }
  gave_up: { terminal: true, failure: true }
`;
}

interface Marks {
  starts: number;
  spans: [number, number][];
}

/** Each item's runs: how many started, and the [start, end] (µs) of each run that ended. */
function marks(tag: string): Map<string, Marks> {
  const out = new Map<string, Marks>();
  const folder = join(dir, 'marks', tag);
  for (const item of existsSync(folder) ? readdirSync(folder) : []) {
    const lines = readFileSync(join(folder, item), 'utf8').trim().split('\n');
    const time = (l: string) => Number(BigInt(l.split(' ')[1]!) / 1000n);
    const spans: [number, number][] = [];
    let open: number | undefined;
    for (const line of lines) {
      if (line.startsWith('start')) open = time(line);
      else if (open !== undefined) {
        spans.push([open, time(line)]);
        open = undefined;
      }
    }
    out.set(item, { starts: lines.filter((l) => l.startsWith('start')).length, spans });
  }
  return out;
}

/** The most spans that overlap at any instant. */
function peak(spans: [number, number][]): number {
  const points = spans.flatMap(([s, e]) => [
    [s, 1],
    [e, -1],
  ]);
  points.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let most = 0;
  for (const [, d] of points) most = Math.max(most, (now += d!));
  return most;
}

async function started(name: string): Promise<string> {
  const run = await cli(['run', name, '--background', '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { instance_id: string }).instance_id;
}

interface Joined {
  count: number;
  succeeded: number;
  results: { index: number; item: string; outcome: string }[];
}

/** The parent's result once it closes, and its events file. */
async function finished(id: string): Promise<{ joined: Joined; events: { event: string; index?: number }[] }> {
  const result = (await (await client()).workflow.getHandle(id).result()) as {
    final_state: string;
    snapshot: { captured: Record<string, unknown> };
  };
  expect(result.final_state).toBe('done');
  const file = join(dir, '.loops', '.running', `${id}.events.jsonl`);
  await waitFor(
    'the events file to end',
    () => existsSync(file) && readFileSync(file, 'utf8').includes('loop_complete'),
  );
  const events = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event: string; index?: number });
  return { joined: result.snapshot.captured.fix_all as Joined, events };
}

/** Every item ended exactly once, the join and the events count each once, never more than `most` at once. */
function exactlyOnce(tag: string, items: string[], most: number, run: Awaited<ReturnType<typeof finished>>): void {
  const seen = marks(tag);
  expect([...seen.keys()].sort()).toEqual([...items].sort());
  for (const [item, m] of seen) expect(m.spans, `item ${item} ran to its end once`).toHaveLength(1);
  expect(peak([...seen.values()].flatMap((m) => m.spans))).toBeLessThanOrEqual(most);
  expect(run.joined.count).toBe(items.length);
  expect(run.joined.succeeded).toBe(items.length);
  expect(run.joined.results.map((r) => r.item)).toEqual(items);
  const done = run.events.filter((e) => e.event === 'item_done').map((e) => e.index);
  expect([...done].sort((a, b) => a! - b!)).toEqual(items.map((_, i) => i));
  expect(run.events.filter((e) => e.event === 'fanout_join')).toHaveLength(1);
}

const ITEMS = Array.from({ length: 9 }, (_, i) => `i${i}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'll-loop-parallel-durability-'));
  mkdirSync(join(dir, '.loops'));
  dataDir = join(dir, '.loops', '.temporal');
  port = await freePort();
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    LL_TEMPORAL_PORT: String(port),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    LL_TEMPORAL_DATA_DIR: dataDir,
    NO_COLOR: '1',
  };
  const up = await cli(['server', 'start']);
  expect(up.code, up.stderr).toBe(0);
});

afterAll(async () => {
  try {
    const pid = workerPid();
    if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  } catch {
    // no worker was started
  }
  await connection?.close();
  await cli(['server', 'stop']);
});

describe('a fan-out survives crashes', () => {
  it('SIGKILL of the worker mid-fan-out: each item runs to its end once, joined once, never more than max_workers at once', async () => {
    const marker = `pfan-worker-${process.pid}`;
    mkdirSync(join(dir, 'marks', 'wk'), { recursive: true });
    writeFileSync(join(dir, '.loops', 'wk.yaml'), work('wk', 1.5, marker));
    writeFileSync(join(dir, '.loops', 'fan-wk.yaml'), fan('fan-wk', 'wk', ITEMS, 3));
    const id = await started('fan-wk');
    // Killed with some items ended and three running.
    await waitFor(
      'two items to end',
      () => [...marks('wk').values()].filter((m) => m.spans.length > 0).length >= 2,
      60_000,
    );
    await waitFor('three running', () => liveProcesses(marker) === 3, 30_000);
    const killed = workerPid();
    process.kill(killed, 'SIGKILL');
    await waitFor('the worker to die', () => !pidAlive(killed));
    // Any command brings the checkout's worker back; the run goes on by itself.
    expect((await cli(['list'])).code).toBe(0);
    exactlyOnce('wk', ITEMS, 3, await finished(id));
  }, 240_000);

  it("SIGKILL of the worker mid-fan-out of a quick loop's items (in the parent's lanes): each item runs to its end once, joined once", async () => {
    const marker = `pfan-lanes-${process.pid}`;
    mkdirSync(join(dir, 'marks', 'ln'), { recursive: true });
    writeFileSync(join(dir, '.loops', 'ln.yaml'), work('ln', 1.5, marker, true));
    writeFileSync(join(dir, '.loops', 'fan-ln.yaml'), fan('fan-ln', 'ln', ITEMS, 3));
    const id = await started('fan-ln');
    await waitFor(
      'two items to end',
      () => [...marks('ln').values()].filter((m) => m.spans.length > 0).length >= 2,
      60_000,
    );
    await waitFor('three running', () => liveProcesses(marker) === 3, 30_000);
    const killed = workerPid();
    process.kill(killed, 'SIGKILL');
    await waitFor('the worker to die', () => !pidAlive(killed));
    expect((await cli(['list'])).code).toBe(0);
    const run = await finished(id);
    exactlyOnce('ln', ITEMS, 3, run);
    // In lanes: no item had a child run.
    expect(run.joined.results.map((r) => (r as { run_id?: string }).run_id)).toEqual(ITEMS.map(() => undefined));
  }, 240_000);

  it('SIGKILL of the server mid-fan-out: each item runs to its end once, joined once, never more than max_workers at once', async () => {
    const marker = `pfan-server-${process.pid}`;
    mkdirSync(join(dir, 'marks', 'sv'), { recursive: true });
    writeFileSync(join(dir, '.loops', 'sv.yaml'), work('sv', 1.5, marker));
    writeFileSync(join(dir, '.loops', 'fan-sv.yaml'), fan('fan-sv', 'sv', ITEMS, 3));
    const id = await started('fan-sv');
    await waitFor(
      'two items to end',
      () => [...marks('sv').values()].filter((m) => m.spans.length > 0).length >= 2,
      60_000,
    );
    await waitFor('three running', () => liveProcesses(marker) === 3, 30_000);
    const killed = serverPid();
    process.kill(killed, 'SIGKILL');
    // The worker restarts the server on its data by itself.
    await waitFor(
      'the server to be back',
      () => {
        try {
          return serverPid() !== killed && pidAlive(serverPid());
        } catch {
          return false;
        }
      },
      45_000,
    );
    connection = undefined;
    exactlyOnce('sv', ITEMS, 3, await finished(id));
  }, 240_000);
});

describe('stopping a fan-out', () => {
  it('`ll-loop stop <parent>` stops every child and kills its process tree', async () => {
    const marker = `pfan-stop-${process.pid}`;
    mkdirSync(join(dir, 'marks', 'st'), { recursive: true });
    // The sleep is a grandchild of the action (bash → sleep in the background): a process tree.
    const sleeper = `sleep 1000.${process.pid % 997}`;
    writeFileSync(join(dir, '.loops', 'st.yaml'), work('st', `${sleeper.slice(6)} & wait`, marker));
    writeFileSync(join(dir, '.loops', 'fan-st.yaml'), fan('fan-st', 'st', ['a', 'b', 'c', 'd'], 2));
    const id = await started('fan-st');
    await waitFor('two children sleeping', () => liveProcesses(marker) === 2, 60_000);
    // The sleeps themselves (not the actions' bash, whose script names them too).
    const sleeps = () =>
      livePids(sleeper).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep');
        } catch {
          return false; // ended while we looked
        }
      });
    await waitFor('their sleeps', () => sleeps().length === 2, 30_000);
    // `list --running` shows the running children under their parent.
    const listed = await cli(['list', '--running']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout.split('\n');
    const parentRow = rows.findIndex((l) => l.startsWith(`${id} `));
    expect(parentRow).toBeGreaterThan(0);
    expect(
      rows
        .slice(parentRow + 1, parentRow + 3)
        .map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '))
        .sort(),
    ).toEqual([`└ ${id}.fix_all.1.0`, `└ ${id}.fix_all.1.1`].sort());
    const stop = await cli(['stop', id]);
    expect(stop.code, stop.stderr).toBe(0);
    await waitFor(
      'every action and its sleep gone',
      () => liveProcesses(marker) + livePids(sleeper).length === 0,
      30_000,
    );
    const c = await client();
    for (const i of [0, 1]) {
      const child = await c.workflow.getHandle(`${id}.fix_all.1.${i}`).describe();
      expect(child.status.name).not.toBe('RUNNING');
    }
    expect(existsSync(join(dir, 'marks', 'st', 'c'))).toBe(false);
  }, 120_000);
});

describe('resuming a fan-out', () => {
  it('a parent stopped mid-fan-out resumes with the ended items kept: only the rest run, the join counts every item once', async () => {
    const marker = `pfan-resume-${process.pid}`;
    mkdirSync(join(dir, 'marks', 'rs'), { recursive: true });
    // Items q* end at once; s* wait until the file `rs.go` exists.
    writeFileSync(
      join(dir, '.loops', 'rs.yaml'),
      work('rs', `$(case "\${context.item}" in q*) echo 0;; *) [ -e rs.go ] && echo 0 || echo 1000;; esac)`, marker),
    );
    const items = ['q0', 'q1', 'q2', 's3', 's4'];
    writeFileSync(join(dir, '.loops', 'fan-rs.yaml'), fan('fan-rs', 'rs', items, 2));
    const id = await started('fan-rs');
    await waitFor(
      'the quick items to end',
      () => [...marks('rs').values()].filter((m) => m.spans.length).length === 3,
      60_000,
    );
    await waitFor('the slow ones to run', () => liveProcesses(marker) === 2, 30_000);
    expect((await cli(['stop', id])).code).toBe(0);
    await waitFor('the slow ones stopped', () => liveProcesses(marker) === 0, 30_000);
    writeFileSync(join(dir, 'rs.go'), '');
    const resumed = await cli(['resume', id, '--background', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const run = await finished(`${id}-r1`);
    const seen = marks('rs');
    for (const item of items) expect(seen.get(item)!.spans, `item ${item} ran to its end once`).toHaveLength(1);
    for (const item of ['q0', 'q1', 'q2']) expect(seen.get(item)!.starts, `item ${item} did not run again`).toBe(1);
    expect(run.joined).toMatchObject({ count: 5, succeeded: 5 });
    expect(run.joined.results.map((r) => r.item)).toEqual(items);
    // The new run noted only the items it ran; the others' child runs are the stopped run's.
    expect(run.events.filter((e) => e.event === 'item_done').map((e) => e.index)).toEqual(
      expect.arrayContaining([3, 4]),
    );
    expect(run.events.filter((e) => e.event === 'item_done')).toHaveLength(2);
    // The carry into the new run is compact, as a continue-as-new's (one payload, capped at 2 MB):
    // the ended children's id prefix once, each result without its item and loop.
    const history = await (await client()).workflow.getHandle(`${id}-r1`).fetchHistory();
    const start = history.events![0]!.workflowExecutionStartedEventAttributes!;
    const input = JSON.parse(Buffer.from(start.input!.payloads![0]!.data!).toString()) as {
      continueFrom: { fanout: { prefix: string; results: Record<string, unknown>[] } };
    };
    expect(input.continueFrom.fanout.prefix).toBe(`${id}.fix_all.1.`);
    expect(input.continueFrom.fanout.results.map((r) => [r.index, r.run_id])).toEqual([
      [0, '0'],
      [1, '1'],
      [2, '2'],
    ]);
    for (const r of input.continueFrom.fanout.results) expect(r).not.toHaveProperty('item');
    // `logs <run> --item N`: that item's child run's output, whichever run ran it.
    const item3 = await cli(['logs', `${id}-r1`, '--item', '3']);
    expect(item3.code, item3.stderr).toBe(0);
    expect(item3.stdout).toContain('item s3 ran');
    expect(item3.stdout).not.toContain('item s4 ran');
    const item0 = await cli(['logs', `${id}-r1`, '--item', '0']); // carried: it ran in the stopped run
    expect(item0.code, item0.stderr).toBe(0);
    expect(item0.stdout).toContain('item q0 ran');
    const gone = await cli(['logs', `${id}-r1`, '--item', '7']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('has items 0 to 4, not 7');
  }, 180_000);
});

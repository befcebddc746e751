/**
 * Worker pools across real hosts: two pool workers, each in a network namespace of its own (its
 * own address and hostname), reaching the cluster over a veth pair; one host cut off (its link
 * down) mid-run. Pinned runs wait for their host and say so; portable runs move to the other
 * host; no completed action runs twice. Each action notes `<hostname> <directory>`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { waitFor } from '../support/processes.js';
import { hostsUnavailable, makeHosts, type Host, type Hosts } from './support/hosts.js';

const unavailable = hostsUnavailable();
let hosts: Hosts;
let base: string;
let connection: Connection;
let client: Client;

/** The environment of a command on a host: the cluster through the relay, data of its own. */
function hostEnv(host: Host, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: hosts.address,
    TEMPORAL_NAMESPACE: 'default',
    LL_WORKER_DATA_DIR: join(base, `data-${host.name}`),
    LL_STATE_DIR: join(base, `state-${host.name}`),
    LL_HOST_NOTICE_S: '3',
    // A cut-off host's running action is noticed by its heartbeat timeout: 8 s here, not 30.
    LL_HEARTBEAT_TIMEOUT_S: '8',
    NO_COLOR: '1',
    ...extra,
  };
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-C', dir, '-c', 'user.email=t@t', '-c', 'user.name=t', ...args]);
}

/** A committed git checkout holding `.loops/held.yaml`: a → b (held until `gate`) → c. */
function checkout(name: string, notes: string, gate: string): string {
  const dir = join(base, name);
  mkdirSync(join(dir, '.loops'), { recursive: true });
  const note = (state: string) => `echo \\"$(hostname) $PWD ${state}\\" >> ${notes}`;
  writeFileSync(
    join(dir, '.loops', 'held.yaml'),
    `name: held
description: notes where its actions run
initial: a
states:
  a:
    action: "${note('a')}"
    timeout: 600
    next: b
  b:
    action: "${note('b')}; while [ ! -e ${gate} ]; do sleep 0.05; done; ${note('b-end')}"
    timeout: 600
    next: c
  c:
    action: "${note('c')}; echo work > result.txt"
    timeout: 600
    terminal: true
`,
  );
  writeFileSync(join(dir, '.gitignore'), '.loops/.running/\n.loops/.worker/\n');
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'loops');
  return dir;
}

/** The notes of `state`, as `host` words. */
const ranOn = (notes: string, state: string) =>
  lines(notes)
    .map((l) => l.split(' '))
    .filter((w) => w[2] === state)
    .map((w) => w[0]);

async function poolWorkers(pool: string): Promise<Array<{ host: Host; out: { text: string } }>> {
  const workers = hosts.hosts.map((host) => ({
    host,
    ...hosts.spawn(host, ['worker', '--pool', pool], hostEnv(host)),
  }));
  await waitFor('both pool workers to poll', () => workers.every((w) => w.out.text.includes('serves pool')), 60_000);
  return workers;
}

describe.skipIf(unavailable !== undefined)(
  `pools across hosts${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    beforeAll(async () => {
      base = mkdtempSync(join(tmpdir(), 'll-loop-cluster-hosts-'));
      const port = Number(process.env.TEMPORAL_ADDRESS!.split(':').at(-1));
      hosts = await makeHosts(['hosta', 'hostb'], port);
      connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
      client = new Client({ connection });
    });
    afterAll(async () => {
      await hosts?.teardown();
      await connection?.close();
      if (base && !process.env.LL_CLUSTER_KEEP) rmSync(base, { recursive: true, force: true });
    });

    it('a pinned run whose host is cut off waits and says so, never runs elsewhere, and finishes when it is back', async () => {
      const [hostA] = hosts.hosts as [Host, Host];
      const workers = await poolWorkers('pinned');
      const notes = join(base, 'pinned-notes');
      const gate = join(base, 'pinned.go');
      const dir = checkout('pinned', notes, gate);
      const started = await hosts.run(
        hostA,
        ['run', 'held', '--pool', 'pinned', '--background', '--json'],
        hostEnv(hostA),
        dir,
      );
      expect(started.code, started.stderr).toBe(0);
      const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
      await waitFor('b to start on host A', () => ranOn(notes, 'b').length === 1, 60_000);
      hosts.cut(hostA);
      writeFileSync(gate, '');
      const handle = client.workflow.getHandle(id);
      await waitFor(
        'status to say the run waits for its host',
        async () =>
          String(
            ((await handle.query('status').catch(() => ({}))) as { waiting_for?: string }).waiting_for ?? '',
          ).includes('never runs the action elsewhere'),
        120_000,
        500,
      );
      expect(ranOn(notes, 'c')).toEqual([]);
      hosts.restore(hostA);
      expect(await handle.result()).toMatchObject({ terminated_by: 'terminal', final_state: 'c' });
      // Every action on host A, in the user's checkout; the completed ones once.
      for (const line of lines(notes)) expect(line.split(' ').slice(0, 2)).toEqual([hostA.name, dir]);
      expect(ranOn(notes, 'a')).toHaveLength(1);
      expect(ranOn(notes, 'c')).toHaveLength(1);
      // b ended while its host was cut off; the run scheduled it anew until the host answered, and
      // the host's journal knew the schedule as the same call (the actionCallKeys run rule):
      // its result was delivered, b not run again.
      expect(ranOn(notes, 'b')).toHaveLength(1);
      expect(ranOn(notes, 'b-end')).toHaveLength(1);
      for (const w of workers) w.out.text = '';
    }, 300_000);

    it('a portable run whose host is cut off moves to the other host; nothing completed runs twice', async () => {
      const workers = await poolWorkers('portable');
      const notes = join(base, 'portable-notes');
      const gate = join(base, 'portable.go');
      const dir = checkout('portable', notes, gate);
      // Started on this machine (the user's), whose checkout worker writes the run's events.
      const started = await runCliBinary(
        ['run', 'held', '--pool', 'portable', '--checkout', 'git', '--background', '--json'],
        {
          cwd: dir,
          env: { ...process.env, LL_HOST_NOTICE_S: '3', LL_HEARTBEAT_TIMEOUT_S: '8', NO_COLOR: '1' },
        },
      );
      expect(started.code, started.stderr).toBe(0);
      const id = (JSON.parse(started.stdout) as { instance_id: string }).instance_id;
      await waitFor('b to start', () => ranOn(notes, 'b').length === 1, 60_000);
      const busy = hosts.hosts.find((h) => h.name === ranOn(notes, 'b')[0])!;
      const other = hosts.hosts.find((h) => h !== busy)!;
      hosts.cut(busy);
      await waitFor('b to start again on the other host', () => ranOn(notes, 'b').length === 2, 150_000, 250);
      expect(ranOn(notes, 'b')[1]).toBe(other.name);
      writeFileSync(gate, '');
      expect(await client.workflow.getHandle(id).result()).toMatchObject({
        terminated_by: 'terminal',
        final_state: 'c',
      });
      hosts.restore(busy);
      expect(ranOn(notes, 'a')).toEqual([busy.name]);
      expect(ranOn(notes, 'c')).toEqual([other.name]);
      // The user's checkout was never worked in.
      expect(existsSync(join(dir, 'result.txt'))).toBe(false);
      const events = readFileSync(join(dir, '.loops', '.running', `${id}.events.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: string; from_host?: string; to_host?: string });
      expect(events.filter((e) => e.event === 'host_change')).toEqual([
        expect.objectContaining({ to_host: busy.name }),
        expect.objectContaining({ from_host: busy.name, to_host: other.name }),
      ]);
      for (const w of workers) w.out.text = '';
    }, 300_000);
  },
);

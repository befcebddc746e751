// `npm run bench -- --only cluster`: the same measurements on a real cluster — the Temporal server
// built from its Go module on PostgreSQL, started as the cluster test tier starts it
// (tests/cluster/support/cluster.ts, binaries cached under .cache/) and set up with
// `ll-loop cluster setup` — and on the bench's dev server, in the same run, side by side:
// per-transition cost (quick actions in bursts, local activities, activities) and the cluster's
// over the dev server's, `ll-loop run` → first action (the checkout's worker up), and N
// (default 100) concurrent 10-state loops.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { concurrentLoops } from './concurrent.mjs';
import { importTestSupport } from './support-bundle.mjs';
import { firstAction } from './first-action.mjs';
import { transitions } from './transitions.mjs';
import {
  BIN,
  benchWorker,
  endpoint,
  flags,
  note,
  project,
  round,
  say,
  serverPid,
  stopWorker,
  tmp,
} from './context.mjs';

/** The cluster tier's support code, bundled from its TypeScript for this plain Node script. */
const clusterSupport = () => importTestSupport('tests/cluster/support/cluster.ts', 'cluster-support');

/** The postmaster (first line of postmaster.pid) and its children: the database's processes. */
function postgresPids(dataDir) {
  let main;
  try {
    main = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return [];
  }
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === main) children.push(Number(entry));
    } catch {
      // gone
    }
  }
  return [main, ...children];
}

/** Run `fn` with the environment a command meets on `target` (TEMPORAL_ADDRESS for the cluster, unset for the dev server). */
async function on(target, fn) {
  const saved = { address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE };
  if (target.env.TEMPORAL_ADDRESS === undefined) delete process.env.TEMPORAL_ADDRESS;
  else Object.assign(process.env, target.env);
  try {
    return await fn();
  } finally {
    for (const [key, value] of [
      ['TEMPORAL_ADDRESS', saved.address],
      ['TEMPORAL_NAMESPACE', saved.namespace],
    ]) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/**
 * Each measurement on the dev server, then at once on the cluster, part after part: the machine
 * is shared and its load moves, so the two figures of a row are taken as close together as they can be.
 */
async function sideBySide(targets, loops) {
  const out = Object.fromEntries(targets.map((t) => [t.key, { transitions: {} }]));
  // Quick transitions as `ll-loop run` runs them (its rules: bursts) first, the remote lane last:
  // its activities leave heartbeat-timeout timers that the shards read later (bench/run.mjs).
  const lanes = [
    ['bursts', true, true, "quick actions, ll-loop run's rules (bursts)"],
    ['local', true, false, 'quick actions, one local activity each'],
    ['remote', false, false, 'activities'],
  ];
  for (const [key, quick, rules, label] of lanes)
    for (const t of targets) {
      const r = await on(t, () => transitions(quick, rules, t.endpoint, t.project));
      out[t.key].transitions[key] = r;
      say(`  ${t.label}: transitions, ${label}: mean ${r.mean_ms} ms over ${r.steps} steps (median ${r.median_ms} ms)`);
    }
  // The issue's measure: the cluster's mean time per transition over the dev server's, each lane.
  out.ratio = Object.fromEntries(
    lanes.map(([key]) => [key, round(out.cluster.transitions[key].mean_ms / out.dev.transitions[key].mean_ms, 2)]),
  );
  say(
    `  cluster / dev server per transition: ${lanes.map(([key]) => `${key} ${out.ratio[key]}×`).join(', ')} (load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  for (const t of targets) {
    const f = await on(t, () => firstAction(t));
    out[t.key].first_action = f;
    for (const key of ['local', 'remote'])
      say(
        `  ${t.label}: ll-loop run → first action, ${key === 'local' ? 'quick action' : 'default action'}: median ${f[key].median_ms} ms, max ${f[key].max_ms} ms (${f[key].runs_ms.join(', ')} ms)`,
      );
  }
  for (const t of targets) {
    const c = await on(t, () => concurrentLoops(loops, t));
    out[t.key].concurrent = c;
    say(
      `  ${t.label}: ${c.loops} concurrent ${c.states_per_loop}-state loops: ${c.completed}/${c.loops} terminal; ${c.transitions} transitions in ${c.wall_s} s = ${c.transitions_per_s}/s; ` +
        `CPU s: worker ${c.cpu_s.worker}, server ${c.cpu_s.server}${c.cpu_s.database === undefined ? '' : `, PostgreSQL ${c.cpu_s.database}`}; machine ${c.machine_busy_pct}% busy`,
    );
    if (c.not_completed > 0) process.exitCode = 1;
  }
  return out;
}

export async function clusterBench() {
  const loops = Number(flags.loops ?? 100);
  const { startCluster, stopCluster, loadCluster } = await clusterSupport();
  const cluster = await startCluster((m) => note(`  [cluster] ${m}`));
  const clusterProject = join(tmp, 'cluster-project');
  mkdirSync(join(clusterProject, '.loops'), { recursive: true });
  const clusterWorker = { pid: undefined };
  try {
    const env = { TEMPORAL_ADDRESS: cluster.address, TEMPORAL_NAMESPACE: 'default' };
    const setup = spawnSync(process.execPath, [BIN, 'cluster', 'setup'], {
      cwd: clusterProject,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    if (setup.status !== 0) throw new Error(`ll-loop cluster setup failed: ${setup.stdout}${setup.stderr}`);
    say(`  dev server ${endpoint.address}; cluster ${cluster.address} (Temporal server on PostgreSQL)`);
    return await sideBySide(
      [
        {
          key: 'dev',
          label: 'dev server',
          env: {},
          endpoint,
          project,
          serverPid,
          databasePids: () => [],
          worker: benchWorker,
        },
        {
          key: 'cluster',
          label: 'cluster   ',
          // Every `ll-loop run` and the checkout worker it starts find the cluster in the environment.
          env,
          endpoint: { mode: 'external', address: cluster.address, namespace: 'default', tls: false },
          project: clusterProject,
          // The current pid: the state file is rewritten when the server is restarted.
          serverPid: loadCluster().serverPid,
          databasePids: () => postgresPids(cluster.postgres.dataDir),
          worker: clusterWorker,
        },
      ],
      loops,
    );
  } finally {
    await stopWorker(clusterWorker.pid);
    await stopCluster(cluster);
  }
}

// `npm run bench -- --only cluster`: the same measurements on a real cluster — the Temporal server
// built from its Go module on PostgreSQL, started as the cluster test tier starts it
// (tests/cluster/support/cluster.ts, binaries cached under .cache/) and set up with
// `ll-loop cluster setup` — and on the bench's dev server, in the same run, side by side:
// per-transition cost (activities and local activities), `ll-loop run` → first action (the
// checkout's worker up), and N (default 100) concurrent 10-state loops.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { concurrentLoops } from './concurrent.mjs';
import { firstAction } from './first-action.mjs';
import { transitions } from './transitions.mjs';
import { BIN, benchWorker, endpoint, flags, note, project, root, say, serverPid, stopWorker, tmp } from './context.mjs';

/** The cluster tier's support code, bundled from its TypeScript for this plain Node script. */
async function clusterSupport() {
  const outfile = join(root, '.cache', 'bench', 'cluster-support.mjs');
  await build({
    entryPoints: [join(root, 'tests', 'cluster', 'support', 'cluster.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outfile,
    // Its modules find the repository (and .cache/) from where their source is, not the bundle.
    define: { 'import.meta.dirname': JSON.stringify(join(root, 'tests', 'cluster', 'support')) },
    logLevel: 'warning',
  });
  return import(outfile);
}

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

/** The measurements on one server. */
async function measure(name, target, loops) {
  say(`  ${name}:`);
  const out = { transitions: {} };
  for (const [key, quick] of [
    ['remote', false],
    ['local', true],
  ]) {
    const r = await transitions(quick, target.endpoint, target.project);
    out.transitions[key] = r;
    say(
      `    transitions, ${key === 'remote' ? 'activities' : 'local activities'}: median ${r.median_ms} ms (mean ${r.mean_ms} ms over ${r.steps} steps)`,
    );
  }
  const f = await firstAction(target);
  out.first_action = f;
  for (const key of ['local', 'remote'])
    say(
      `    ll-loop run → first action, ${key === 'local' ? 'quick action' : 'default action'}: median ${f[key].median_ms} ms, max ${f[key].max_ms} ms (${f[key].runs_ms.join(', ')} ms)`,
    );
  const c = await concurrentLoops(loops, target);
  out.concurrent = c;
  say(
    `    ${c.loops} concurrent ${c.states_per_loop}-state loops: ${c.completed}/${c.loops} terminal; ${c.transitions} transitions in ${c.wall_s} s = ${c.transitions_per_s}/s; ` +
      `CPU s: worker ${c.cpu_s.worker}, server ${c.cpu_s.server}${c.cpu_s.database === undefined ? '' : `, PostgreSQL ${c.cpu_s.database}`}; machine ${c.machine_busy_pct}% busy`,
  );
  if (c.not_completed > 0) process.exitCode = 1;
  return out;
}

export async function clusterBench() {
  const loops = Number(flags.loops ?? 100);
  const { startCluster, stopCluster, loadCluster } = await clusterSupport();
  const cluster = await startCluster((m) => note(`  [cluster] ${m}`));
  const clusterProject = join(tmp, 'cluster-project');
  mkdirSync(join(clusterProject, '.loops'), { recursive: true });
  const clusterWorker = { pid: undefined };
  const saved = { address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE };
  try {
    const env = { ...process.env, TEMPORAL_ADDRESS: cluster.address, TEMPORAL_NAMESPACE: 'default' };
    const setup = spawnSync(process.execPath, [BIN, 'cluster', 'setup'], {
      cwd: clusterProject,
      env,
      encoding: 'utf8',
    });
    if (setup.status !== 0) throw new Error(`ll-loop cluster setup failed: ${setup.stdout}${setup.stderr}`);
    const report = {
      dev: await measure(
        `dev server ${endpoint.address}`,
        { endpoint, project, serverPid, databasePids: () => [], worker: benchWorker },
        loops,
      ),
    };
    // Every `ll-loop run` and the checkout worker it starts find the cluster in the environment.
    process.env.TEMPORAL_ADDRESS = cluster.address;
    process.env.TEMPORAL_NAMESPACE = 'default';
    report.cluster = await measure(
      `cluster ${cluster.address} (Temporal server on PostgreSQL)`,
      {
        endpoint: { mode: 'external', address: cluster.address, namespace: 'default', tls: false },
        project: clusterProject,
        // The current pid: loadCluster reads the state file, as a restart would have rewritten it.
        serverPid: loadCluster().serverPid,
        databasePids: () => postgresPids(cluster.postgres.dataDir),
        worker: clusterWorker,
      },
      loops,
    );
    return report;
  } finally {
    if (saved.address === undefined) delete process.env.TEMPORAL_ADDRESS;
    else process.env.TEMPORAL_ADDRESS = saved.address;
    if (saved.namespace === undefined) delete process.env.TEMPORAL_NAMESPACE;
    else process.env.TEMPORAL_NAMESPACE = saved.namespace;
    await stopWorker(clusterWorker.pid);
    await stopCluster(cluster);
  }
}

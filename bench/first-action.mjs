// `npm run bench` part `first-action`: `ll-loop run` → its first action, the checkout's worker up.
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN,
  FIRST_RUNS,
  PROBE,
  benchWorker,
  connectClient,
  endpoint,
  median,
  project,
  round,
  sleep,
  spawnProfiledWorker,
  spawnerOf,
  tmp,
  tsMs,
  wall,
} from './context.mjs';

/** `node [--import probe] bin/ll-loop.js run <loop> --json` in `cwd`; its instance id. */
function runCli(cwd, loop, probeOut) {
  return new Promise((resolve, reject) => {
    const args = [...(probeOut ? ['--import', PROBE] : []), BIN, 'run', loop, '--json'];
    const child = spawn(process.execPath, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...(probeOut ? { LL_BENCH_PROBE_OUT: probeOut } : {}) },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    // 'close', not 'exit': its stdout may still be unread when the process has exited.
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`ll-loop run ${loop} exited ${code}: ${out.slice(-500)}`));
      try {
        resolve(JSON.parse(out).instance_id);
      } catch (err) {
        reject(new Error(`ll-loop run ${loop}: no JSON result (${err.message}): ${out.slice(-500)}`));
      }
    });
  });
}

/** One timed run: ms from spawn to the action's own timestamp, and the workflow id. */
async function timedRun(cwd, loop, probeOut) {
  const stamp = join(cwd, `${loop}.ns`);
  rmSync(stamp, { force: true });
  const spawnedAt = wall();
  const workflowId = await runCli(cwd, loop, probeOut);
  const actionAt = Number(BigInt(readFileSync(stamp, 'utf8').trim()) / 1000n) / 1000; // ns → ms
  return { spawnedAt, actionAt, ms: actionAt - spawnedAt, workflowId };
}

/** Where the first action's time went in one run, from its history (and the probe's record). */
async function breakdownOf(client, run, probe) {
  const events = (await client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
  const started = events.find((e) => e.workflowExecutionStartedEventAttributes);
  const wft = events.find((e) => e.workflowTaskStartedEventAttributes);
  const startedAt = tsMs(started.eventTime);
  const wftAt = tsMs(wft.eventTime);
  const b = {
    client_ms: startedAt - run.spawnedAt, // spawn → the server records the start
    dispatch_ms: wftAt - startedAt, // → the worker has the first workflow task
    worker_ms: run.actionAt - wftAt, // → the action writes its timestamp
  };
  if (probe) {
    const firstSocket = probe.sockets[0];
    Object.assign(b, {
      node_startup_ms: probe.preload - run.spawnedAt,
      // Node up → the first connection: the early start's request (runs/start/early-start.ts),
      // or, without it, the CLI loaded and the loop loaded and checked first.
      before_connect_ms: firstSocket - probe.preload,
      connect_to_start_ms: startedAt - firstSocket,
      // Node up → the CLI's bundle compiled (its modules about to run), beside the worker's start.
      cli_compiled_ms: probe.cli_compiled === undefined ? null : probe.cli_compiled - probe.preload,
      connections_before_start: probe.sockets.filter((t) => t < startedAt).length,
      worker_sdk_loaded_ms: probe.worker_sdk === undefined ? null : probe.worker_sdk - run.spawnedAt,
      worker_sdk_before_start: probe.worker_sdk !== undefined && probe.worker_sdk < startedAt,
      client_sdk_before_start: probe.client_sdk !== undefined && probe.client_sdk < startedAt,
      cpu_before_connect_ms: probe.cpu_at_socket_ms,
      cpu_total_ms: probe.cpu_ms,
    });
  }
  return b;
}

function writeFirstLoops(project) {
  const loop = (name, extra) =>
    `name: ${name}\ndescription: time to first action\ninitial: go\n${extra}states:\n  go:\n    action: "date +%s%N > ${name}.ns"\n    next: done\n  done:\n    terminal: true\n`;
  // A quick action (timeout ≤ 30 s: a local activity, in the first workflow task) and one with
  // the default timeout (an activity: one more round trip through the server).
  writeFileSync(join(project, '.loops', 'first.yaml'), loop('first', 'default_timeout: 10\n'));
  writeFileSync(join(project, '.loops', 'first-remote.yaml'), loop('first-remote', ''));
}

/**
 * `target`: the server (`endpoint`, which every `ll-loop run` finds in the environment) and the
 * project, whose checkout worker is recorded in `worker` (stopped by the bench at the end);
 * default: the bench's dev server and project.
 */
export async function firstAction(target = { endpoint, project, worker: benchWorker }) {
  const { project } = target;
  writeFirstLoops(project);
  if (target.worker === benchWorker) spawnProfiledWorker();
  // Warm-up: starts the checkout's worker (ensureCheckoutWorker) and runs one loop on it.
  const warm = await timedRun(project, 'first');
  const record = JSON.parse(readFileSync(join(project, '.loops', '.worker', 'worker.json'), 'utf8'));
  target.worker.pid = record.pid;
  const out = { warmup_ms: round(warm.ms), worker_pid: record.pid };
  const { client, connection } = await connectClient(target.endpoint);
  try {
    for (const [key, loop] of [
      ['local', 'first'],
      ['remote', 'first-remote'],
    ]) {
      const runs = [];
      for (let i = 0; i < FIRST_RUNS; i += 1) runs.push(await timedRun(project, loop));
      const parts = await Promise.all(runs.map((r) => breakdownOf(client, r)));
      out[key] = {
        runs_ms: runs.map((r) => round(r.ms)),
        median_ms: round(median(runs.map((r) => r.ms))),
        max_ms: round(Math.max(...runs.map((r) => r.ms))),
        phases_median_ms: medians(parts),
      };
    }
    // The first run after a pause (1 s here): the worker up, its action spawner gone (it leaves
    // after 30 s without an action; ended here by pid, as its idle timer would end it), and, by
    // turns, the same pause with the spawner up: what the pause costs by itself.
    const paused = { down: [], up: [] };
    for (let i = 0; i < 2 * FIRST_RUNS; i += 1) {
      // Up first (the last run started it): a spawner that had been up, then left.
      await sleep(1000);
      const spawner = spawnerOf(target.worker.pid);
      if (i % 2 === 0 && spawner !== undefined) {
        process.kill(spawner, 'SIGTERM');
        while (spawnerOf(target.worker.pid) === spawner) await sleep(20);
      }
      paused[i % 2 === 0 ? 'down' : 'up'].push(await timedRun(project, 'first'));
    }
    for (const [key, runs] of [
      ['spawner_down', paused.down],
      ['paused_spawner_up', paused.up],
    ])
      out[key] = { runs_ms: runs.map((r) => round(r.ms)), median_ms: round(median(runs.map((r) => r.ms))) };
    // The same runs on a loaded machine (the second goal, 0.6 s): every core held by a
    // busy process of its own, at the same priority as ours, for as long as the runs take.
    out.loaded = await underLoad(cpus().length, async () => {
      const loaded = {};
      for (const [key, loop] of [
        ['local', 'first'],
        ['remote', 'first-remote'],
      ]) {
        const runs = [];
        for (let i = 0; i < FIRST_RUNS; i += 1) runs.push(await timedRun(project, loop));
        loaded[key] = {
          runs_ms: runs.map((r) => round(r.ms)),
          median_ms: round(median(runs.map((r) => r.ms))),
          max_ms: round(Math.max(...runs.map((r) => r.ms))),
        };
      }
      return loaded;
    });
    // The client side in detail: the same runs with the probe preloaded (not in the figures above).
    const probed = [];
    for (let i = 0; i < Math.min(3, FIRST_RUNS); i += 1) {
      const file = join(tmp, `probe-${i}.json`);
      const run = await timedRun(project, 'first', file);
      probed.push(await breakdownOf(client, run, JSON.parse(readFileSync(file, 'utf8'))));
    }
    out.breakdown_median_ms = medians(probed);
    out.breakdown_runs = probed.map((p) =>
      Object.fromEntries(Object.entries(p).map(([k, v]) => [k, typeof v === 'number' ? round(v, 1) : v])),
    );
  } finally {
    await connection.close();
  }
  return out;
}

/** `work` with `n` processes spinning beside it (one per core: the machine loaded); their count with its result. */
async function underLoad(n, work) {
  const spinners = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    // Until they spin: a started Node is busy at once, but give the scheduler a moment to see it.
    await new Promise((r) => setTimeout(r, 500));
    return { busy_processes: n, ...(await work()) };
  } finally {
    for (const s of spinners) s.kill('SIGKILL');
  }
}

/** Per-key medians of numeric fields (booleans: whether any run had it). */
function medians(rows) {
  const out = {};
  for (const key of Object.keys(rows[0] ?? {})) {
    const vals = rows.map((r) => r[key]);
    if (typeof vals[0] === 'boolean') out[key] = vals.some(Boolean);
    else if (vals.every((v) => typeof v === 'number')) out[key] = round(median(vals), 1);
    else out[key] = vals[0];
  }
  return out;
}

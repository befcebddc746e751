#!/usr/bin/env node
// `npm run bench`: the issue's benchmarks against the built package (dist/), on a dedicated
// embedded Temporal dev server this script starts in a temporary directory (LL_TEMPORAL_PORT,
// LL_TEMPORAL_UI_PORT, LL_TEMPORAL_DATA_DIR) and stops at the end, with the checkout worker it used.
//   0. cli: wall time of `ll-loop --help`, `validate`, `show` and `list` (bench/cli-latency.mjs), goal 0.3 s.
//   1. transitions: a 1,000-transition shell loop alternating `true`/`false`: median ms per
//      transition (between consecutive state_enter events), remote and local activities, on a
//      worker in this process.
//   2. first-action: time from spawning `ll-loop run` to its first action, the checkout's worker
//      already running; for a quick action (a local activity) and a default one (an activity),
//      and a breakdown of where the time goes (bench/first-action-probe.mjs, the run's history).
//   3. spawn: the cost of one shell action in the activity itself (`runAction`, `bash -c true`).
//   3b. llm: what an API provider's LLM evaluation adds beyond the model call (bench/llm-overhead.mjs), goal 50 ms.
//   4. concurrent: N (default 1,000) 10-state loops of quick actions started at once on the
//      checkout's worker (client/runs/start-run.ts, the queue of worker/checkout.ts): all must end
//      in their terminal state; transitions per second, peak RSS of the worker (VmHWM) and CPU
//      time of the worker and the server.
//   5. parked (only with --parked N or --only parked, last): N loops parked on a 15-minute backoff, each held in the
//      checkout worker's cache (up to its limit): the worker's RSS with that many open runs.
// Flags: --json (one JSON object on stdout, progress on stderr), --quick (development: 100 loops,
// 200 transitions), --loops N, --only a,b (cli, transitions, first-action, spawn, llm, concurrent, parked),
// --first-runs N (default 5), --parked N.
// BENCH_LONG=1 runs only the long-loop check instead: a 20,000-transition loop (BENCH_LONG_TRANSITIONS)
// of local activities to its end, printing the total time and how many runs continued as new.
// Env: BENCH_TRANSITIONS, BENCH_SKIP_REMOTE, BENCH_NO_FILES as before; LL_TEMPORAL_CLI to use a
// temporal binary already on the machine.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cliLatency } from './cli-latency.mjs';
import { llmOverhead } from './llm-overhead.mjs';

const { values: flags } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    loops: { type: 'string' },
    only: { type: 'string' },
    'first-runs': { type: 'string' },
    parked: { type: 'string' },
  },
});
const QUICK = flags.quick;
const LOOPS = Number(flags.loops ?? (QUICK ? 100 : 1000));
const FIRST_RUNS = Number(flags['first-runs'] ?? 5);
const TRANSITIONS = Number(process.env.BENCH_TRANSITIONS ?? (QUICK ? 200 : 1000));
const PARTS = new Set((flags.only ?? 'cli,transitions,first-action,spawn,llm,concurrent').split(',').map((s) => s.trim()));
for (const p of PARTS) if (!['cli', 'transitions', 'first-action', 'spawn', 'llm', 'concurrent', 'parked'].includes(p)) throw new Error(`--only: unknown part ${p}`);
// Parked runs: only when asked for (--parked N, or --only parked with --loops N).
const PARKED = flags.parked !== undefined ? Number(flags.parked) : PARTS.has('parked') ? LOOPS : 0;
if (!Number.isInteger(PARKED) || PARKED < 0) throw new Error(`--parked must be a number of loops, got ${flags.parked}`);
if (!Number.isInteger(LOOPS) || LOOPS < 1) throw new Error(`--loops must be a positive integer, got ${flags.loops}`);

/** Human output (stdout), or progress notes (stderr) when --json keeps stdout for the JSON. */
const say = (line) => (flags.json ? process.stderr.write(`${line}\n`) : process.stdout.write(`${line}\n`));
const note = (line) => process.stderr.write(`${line}\n`);

const root = join(fileURLToPath(import.meta.url), '..', '..');
const BIN = join(root, 'bin', 'll-loop.js');
const PROBE = join(root, 'bench', 'first-action-probe.mjs');
const wall = () => performance.timeOrigin + performance.now();

// The bench's own world: a project (a checkout: it has .loops/), its server's data, the state
// directory the runs leave their environment in. Set before anything reads them, so the checkout
// worker and every `ll-loop run` spawned below inherit them.
const tmp = mkdtempSync(join(tmpdir(), 'll-loop-bench-'));
const project = join(tmp, 'project');
mkdirSync(join(project, '.loops'), { recursive: true });
delete process.env.TEMPORAL_ADDRESS;
process.env.LL_TEMPORAL_DATA_DIR = join(tmp, 'temporal');
process.env.LL_TEMPORAL_PORT = String(await freePort());
process.env.LL_TEMPORAL_UI_PORT = String(await freePort());
process.env.LL_STATE_DIR = join(tmp, 'state');

const dist = (p) => import(join(root, 'dist', p));
const { resolveEndpoint, resolveTemporalTarget, connectClient, connectWorkerConnection } = await dist('client/temporal/connection.js');
const { embeddedServerOptions } = await dist('client/temporal/embedded.js');
const { stopDevServer } = await dist('client/temporal/dev-server.js');
const { createLoopWorker, installQuietRuntime } = await dist('worker/create-worker.js');
const { validateLoop } = await dist('fsm/validate.js');
const { createActivities } = await dist('activities/index.js');

installQuietRuntime('ERROR');
const serverOptions = embeddedServerOptions(project);
const serverStarted = wall();
const endpoint = await resolveEndpoint(resolveTemporalTarget(), serverOptions);
const serverPid = Number(readFileSync(join(serverOptions.dataDir, 'server.pid'), 'utf8').trim());
const report = {
  machine: { cpus: cpus().length, loadavg_at_start: loadavg().map((l) => Number(l.toFixed(2))) },
  server: { address: endpoint.address, pid: serverPid, start_ms: Math.round(wall() - serverStarted) },
};
/** The checkout worker this bench started (stopped at the end). */
let benchWorkerPid;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x, d = 0) => (x === undefined || Number.isNaN(x) ? undefined : Number(x.toFixed(d)));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** /proc/<pid>/status fields in kB (VmHWM, VmRSS), or undefined when the process is gone. */
function procStatus(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
    return { hwm_kb: kb('VmHWM'), rss_kb: kb('VmRSS') };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return undefined;
  }
}

/** Busy and total jiffies of the whole machine (first line of /proc/stat). */
function machineJiffies() {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = f.map(Number);
  const idle = n[3] + n[4];
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** A Temporal timestamp ({seconds: Long, nanos}) in ms. */
const tsMs = (t) => Number(String(t.seconds)) * 1000 + (t.nanos ?? 0) / 1e6;

// ---------------------------------------------------------------------------------------------
// 1. transitions (in-process worker on a queue of its own)

async function transitions(quick) {
  const localMax = 30;
  const { client, connection } = await connectClient(endpoint);
  const native = await connectWorkerConnection(endpoint);
  const def = validateLoop({
    name: 'bench-alternate',
    description: 'alternate true and false',
    initial: 'a',
    max_iterations: TRANSITIONS,
    max_steps: TRANSITIONS,
    ...(quick ? { default_timeout: 10 } : {}),
    states: {
      a: { action: 'true', on_yes: 'b', on_no: 'b' },
      b: { action: 'false', on_yes: 'a', on_no: 'a' },
      done: { terminal: true },
    },
  }).definition;
  const taskQueue = `bench-${process.pid}-${quick}`;
  const workflowId = `bench-alternate-${Date.now()}-${quick ? 'local' : 'remote'}`;
  const { worker, events } = await createLoopWorker({ connection: native, namespace: endpoint.namespace, taskQueue });
  const enters = [];
  events.subscribe(workflowId, (e) => {
    if (e.event === 'state_enter') enters.push(performance.now());
  });
  const started = performance.now();
  const result = await worker.runUntil(async () => {
    const handle = await client.workflow.start('loopWorkflow', {
      workflowId,
      taskQueue,
      args: [{ definition: def, options: { cwd: project, localActivityMaxTimeoutS: localMax } }],
      memo: process.env.BENCH_NO_FILES ? {} : { cwd: project },
    });
    return handle.result();
  });
  const total = performance.now() - started;
  await events.close();
  await native.close();
  await connection.close();
  const deltas = enters.slice(1).map((t, i) => t - enters[i]);
  return { steps: result.steps, terminated_by: result.terminated_by, median_ms: round(median(deltas), 2), mean_ms: round(total / result.steps, 2) };
}

/** Issue 3 "Long and endless loops": a long loop completes, continuing as new along the way. */
async function longLoop(count) {
  const { client, connection } = await connectClient(endpoint);
  const native = await connectWorkerConnection(endpoint);
  const def = validateLoop({
    name: 'bench-long',
    description: 'a long alternating loop',
    initial: 'a',
    max_iterations: count,
    max_steps: count,
    default_timeout: 5,
    states: {
      a: { action: 'true', capture: 'a', on_yes: 'b', on_no: 'b' },
      b: { action: 'false', on_yes: 'a', on_no: 'a' },
      done: { terminal: true },
    },
  }).definition;
  const taskQueue = `bench-long-${process.pid}`;
  const workflowId = `bench-long-${Date.now()}`;
  const { worker, events } = await createLoopWorker({ connection: native, namespace: endpoint.namespace, taskQueue });
  const started = performance.now();
  const result = await worker.runUntil(async () => {
    const handle = await client.workflow.start('loopWorkflow', {
      workflowId,
      taskQueue,
      args: [{ definition: def, options: { cwd: project, localActivityMaxTimeoutS: 30 } }],
      memo: { cwd: project },
    });
    return handle.result();
  });
  const total = performance.now() - started;
  await events.close();
  let runs = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs += 1;
  await native.close();
  await connection.close();
  return { ...result, total, runs };
}

// ---------------------------------------------------------------------------------------------
// 2. ll-loop run → first action, the checkout worker up

/** `node [--import probe] bin/ll-loop.js run <loop> --json` in the project; its instance id. */
function runCli(loop, probeOut) {
  return new Promise((resolve, reject) => {
    const args = [...(probeOut ? ['--import', PROBE] : []), BIN, 'run', loop, '--json'];
    const child = spawn(process.execPath, args, {
      cwd: project,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...(probeOut ? { LL_BENCH_PROBE_OUT: probeOut } : {}) },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
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
async function timedRun(loop, probeOut) {
  const stamp = join(project, `${loop}.ns`);
  rmSync(stamp, { force: true });
  const spawnedAt = wall();
  const workflowId = await runCli(loop, probeOut);
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
      cli_modules_ms: probe.cli_loaded - probe.preload,
      before_connect_ms: firstSocket - probe.cli_loaded,
      connect_to_start_ms: startedAt - firstSocket,
      connections_before_start: probe.sockets.filter((t) => t < startedAt).length,
      worker_sdk_loaded_ms: probe.worker_sdk === undefined ? null : probe.worker_sdk - run.spawnedAt,
      worker_sdk_before_start: probe.worker_sdk !== undefined && probe.worker_sdk < startedAt,
    });
  }
  return b;
}

function writeFirstLoops() {
  const loop = (name, extra) =>
    `name: ${name}\ndescription: time to first action\ninitial: go\n${extra}states:\n  go:\n    action: "date +%s%N > ${name}.ns"\n    next: done\n  done:\n    terminal: true\n`;
  // A quick action (timeout ≤ 30 s: a local activity, in the first workflow task) and one with
  // the default timeout (an activity: one more round trip through the server).
  writeFileSync(join(project, '.loops', 'first.yaml'), loop('first', 'default_timeout: 10\n'));
  writeFileSync(join(project, '.loops', 'first-remote.yaml'), loop('first-remote', ''));
}

async function firstAction() {
  writeFirstLoops();
  spawnProfiledWorker();
  // Warm-up: starts the checkout's worker (ensureCheckoutWorker) and runs one loop on it.
  const warm = await timedRun('first');
  const record = JSON.parse(readFileSync(join(project, '.loops', '.worker', 'worker.json'), 'utf8'));
  benchWorkerPid = record.pid;
  const out = { warmup_ms: round(warm.ms), worker_pid: record.pid };
  const { client, connection } = await connectClient(endpoint);
  try {
    for (const [key, loop] of [['local', 'first'], ['remote', 'first-remote']]) {
      const runs = [];
      for (let i = 0; i < FIRST_RUNS; i += 1) runs.push(await timedRun(loop));
      const parts = await Promise.all(runs.map((r) => breakdownOf(client, r)));
      out[key] = {
        runs_ms: runs.map((r) => round(r.ms)),
        median_ms: round(median(runs.map((r) => r.ms))),
        max_ms: round(Math.max(...runs.map((r) => r.ms))),
        phases_median_ms: medians(parts),
      };
    }
    // The client side in detail: the same runs with the probe preloaded (not in the figures above).
    const probed = [];
    for (let i = 0; i < Math.min(3, FIRST_RUNS); i += 1) {
      const file = join(tmp, `probe-${i}.json`);
      const run = await timedRun('first', file);
      probed.push(await breakdownOf(client, run, JSON.parse(readFileSync(file, 'utf8'))));
    }
    out.breakdown_median_ms = medians(probed);
    out.breakdown_runs = probed.map((p) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, typeof v === 'number' ? round(v, 1) : v])));
  } finally {
    await connection.close();
  }
  return out;
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

// ---------------------------------------------------------------------------------------------
// 3. one shell action, no Temporal

/** Mean wall time of `runAction` on `bash -c true`, called directly (outside any worker). */
async function actionSpawns(n) {
  const { runAction } = createActivities();
  const input = { instanceId: 'bench', state: 'spawn', step: 1, kind: 'shell', shell: { script: 'true', vars: {}, env: {} }, cwd: project, timeout_s: 30 };
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) await runAction(input);
  return (performance.now() - t0) / n;
}

// ---------------------------------------------------------------------------------------------
// 4. N concurrent 10-state loops on the checkout worker

const TEN_STATES = 10;

async function concurrentLoops(count) {
  const { checkoutAt } = await dist('worker/checkout.js');
  const { ensureCheckoutWorker } = await dist('client/runs/checkout-worker.js');
  const { startLoopRun, searchAttributesAvailable } = await dist('client/runs/start-run.js');
  const { loadLoop } = await dist('loader/load.js');
  // s1 → s2 → … → s10 → done, each a quick shell action (local activities).
  const states = Array.from({ length: TEN_STATES }, (_, i) => `  s${i + 1}:\n    action: "true"\n    next: ${i + 1 < TEN_STATES ? `s${i + 2}` : 'done'}\n`).join('');
  writeFileSync(join(project, '.loops', 'ten.yaml'), `name: ten\ndescription: ten quick states\ninitial: s1\ndefault_timeout: 10\nstates:\n${states}  done:\n    terminal: true\n`);
  const loaded = loadLoop('ten', project, { requireParameters: true });
  if (!loaded.definition) throw new Error(`ten.yaml: ${JSON.stringify(loaded.diagnostics)}`);

  spawnProfiledWorker();
  const worker = await ensureCheckoutWorker(project, endpoint.address);
  benchWorkerPid = worker.pid;
  const queue = checkoutAt(project).queue;
  if (worker.queue !== queue) throw new Error(`the worker polls ${worker.queue}, not ${queue}`);
  const { client, connection } = await connectClient(endpoint);
  const searchAttributes = await searchAttributesAvailable(endpoint, connection);
  const batch = `ten-${Date.now()}`;

  const cpu0 = { worker: cpuSeconds(worker.pid), server: cpuSeconds(serverPid), machine: machineJiffies() };
  const rss0 = procStatus(worker.pid);
  let peakRssKb = rss0?.rss_kb ?? 0;
  const sampler = setInterval(() => {
    const s = procStatus(worker.pid);
    if (s) peakRssKb = Math.max(peakRssKb, s.rss_kb);
  }, 250);

  const t0 = wall();
  const ids = [];
  let next = 0;
  const startOne = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const workflowId = `${batch}-${i}`;
      await startLoopRun({ client, definition: loaded.definition, file: loaded.file, cwd: project, taskQueue: queue, searchAttributes, started: new Date(), workflowId });
      ids.push(workflowId);
    }
  };
  // 20 starts in flight: the start path is one RPC each; more only queues on the server.
  await Promise.all(Array.from({ length: Math.min(20, count) }, startOne));
  const allStarted = wall();
  say(`  concurrent: ${count} loops started in ${((allStarted - t0) / 1000).toFixed(1)} s; waiting for them to end…`);

  // Wait for every run to close, asking the server's visibility store once a second (one cheap
  // RPC, not one per run: the bench must not load the server it measures), then read each run.
  const deadline = Date.now() + Number(process.env.BENCH_CONCURRENT_TIMEOUT_S ?? 1800) * 1000;
  // The bench's server is its own and runs one batch: its loop name tells the batch's runs apart.
  const running = `LoopName = 'ten' AND ExecutionStatus = 'Running'`;
  let lastNote = Date.now();
  for (;;) {
    const open = (await client.workflow.count(running)).count;
    if (open === 0 || Date.now() > deadline) break;
    if (Date.now() - lastNote > 10_000) {
      lastNote = Date.now();
      note(`  … ${count - open}/${count} ended after ${((wall() - t0) / 1000).toFixed(0)} s (worker RSS ${Math.round((procStatus(worker.pid)?.rss_kb ?? 0) / 1024)} MB)`);
    }
    await sleep(1000);
  }
  const results = new Map();
  for (let i = 0; i < ids.length; i += 50) {
    await Promise.all(
      ids.slice(i, i + 50).map(async (id) => {
        const handle = client.workflow.getHandle(id);
        const d = await handle.describe();
        const result = d.status.name === 'COMPLETED' ? await handle.result() : undefined;
        results.set(id, { status: d.status.name, start: d.startTime.getTime(), close: d.closeTime?.getTime(), result });
      }),
    );
  }
  clearInterval(sampler);
  const cpu1 = { worker: cpuSeconds(worker.pid), server: cpuSeconds(serverPid), machine: machineJiffies() };
  const status = procStatus(worker.pid);

  const rows = [...results.values()];
  const ok = rows.filter((r) => r.status === 'COMPLETED' && r.result?.terminated_by === 'terminal');
  const steps = rows.reduce((n, r) => n + (r.result?.steps ?? 0), 0);
  const firstStart = Math.min(...rows.map((r) => r.start));
  const lastClose = Math.max(...rows.map((r) => r.close ?? 0));
  const windowS = (lastClose - firstStart) / 1000;
  // A sample of the runs' histories (20, spread over the batch): how many workflow tasks (server
  // round trips) a 10-state loop took, and whether any timed out or failed (an overloaded worker).
  const sampleIds = ids.filter((_, i) => i % Math.max(1, Math.floor(ids.length / 20)) === 0).slice(0, 20);
  const histories = await Promise.all(sampleIds.map(async (id) => (await client.workflow.getHandle(id).fetchHistory()).events ?? []));
  const per = (f) => round(histories.reduce((n, h) => n + h.filter(f).length, 0) / Math.max(1, histories.length), 1);
  await connection.close();
  const machineBusy = (cpu1.machine.busy - cpu0.machine.busy) / (cpu1.machine.total - cpu0.machine.total);
  return {
    loops: count,
    states_per_loop: TEN_STATES,
    completed: ok.length,
    not_completed: count - ok.length,
    statuses: rows.reduce((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {}),
    transitions: steps,
    start_all_s: round((allStarted - t0) / 1000, 1),
    wall_s: round(windowS, 1),
    transitions_per_s: round(steps / windowS, 1),
    worker_peak_rss_mb: round((status?.hwm_kb ?? 0) / 1024),
    worker_peak_rss_sampled_mb: round(peakRssKb / 1024),
    worker_rss_before_mb: round((rss0?.rss_kb ?? 0) / 1024),
    server_peak_rss_mb: round((procStatus(serverPid)?.hwm_kb ?? 0) / 1024),
    cpu_s: { worker: round(cpu1.worker - cpu0.worker, 1), server: round(cpu1.server - cpu0.server, 1) },
    machine_busy_pct: round(machineBusy * 100),
    histories_sampled: histories.length,
    per_loop_mean: {
      events: per(() => true),
      workflow_tasks: per((e) => e.workflowTaskCompletedEventAttributes),
      workflow_task_timeouts: per((e) => e.workflowTaskTimedOutEventAttributes),
      workflow_task_failures: per((e) => e.workflowTaskFailedEventAttributes),
      local_actions: per((e) => e.markerRecordedEventAttributes),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 5. N open runs parked in the checkout worker

async function parkedLoops(count) {
  const { checkoutAt } = await dist('worker/checkout.js');
  const { ensureCheckoutWorker } = await dist('client/runs/checkout-worker.js');
  const { startLoopRun } = await dist('client/runs/start-run.js');
  const { loadLoop } = await dist('loader/load.js');
  // One quick action, then a new pass: a 900 s backoff (a durable timer) keeps the run open.
  writeFileSync(
    join(project, '.loops', 'park.yaml'),
    'name: park\ndescription: one action, then a long backoff\ninitial: a\nbackoff: 900\ndefault_timeout: 10\nstates:\n  a:\n    action: "true"\n    on_yes: a\n    on_no: done\n  done:\n    terminal: true\n',
  );
  const loaded = loadLoop('park', project, { requireParameters: true });
  spawnProfiledWorker();
  const worker = await ensureCheckoutWorker(project, endpoint.address);
  benchWorkerPid = worker.pid;
  const { client, connection } = await connectClient(endpoint);
  const before = procStatus(worker.pid);
  const ids = [];
  const batch = `park-${Date.now()}`;
  const t0 = wall();
  let next = 0;
  const startOne = async () => {
    for (let i = next++; i < count; i = next++) {
      const workflowId = `${batch}-${i}`;
      await startLoopRun({ client, definition: loaded.definition, file: loaded.file, cwd: project, taskQueue: checkoutAt(project).queue, searchAttributes: true, started: new Date(), workflowId });
      ids.push(workflowId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(20, count) }, startOne));
  // Parked once each has had its first workflow task (it set its LoopState).
  const deadline = Date.now() + 600_000;
  while ((await client.workflow.count(`LoopName = 'park' AND ExecutionStatus = 'Running' AND LoopState = 'a'`)).count < count && Date.now() < deadline) await sleep(1000);
  const parkedAfterS = (wall() - t0) / 1000;
  await sleep(5000);
  const after = procStatus(worker.pid);
  for (let i = 0; i < ids.length; i += 50) await Promise.all(ids.slice(i, i + 50).map((id) => client.workflow.getHandle(id).terminate('bench done').catch(() => undefined)));
  await connection.close();
  return {
    loops: count,
    parked_after_s: round(parkedAfterS, 1),
    worker_rss_before_mb: round((before?.rss_kb ?? 0) / 1024),
    worker_rss_parked_mb: round((after?.rss_kb ?? 0) / 1024),
    worker_peak_rss_mb: round((after?.hwm_kb ?? 0) / 1024),
  };
}

// ---------------------------------------------------------------------------------------------

/**
 * BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p" (options Node refuses in NODE_OPTIONS):
 * start the checkout's worker here with them, before a command would start a plain one.
 */
function spawnProfiledWorker() {
  const extra = process.env.BENCH_WORKER_NODE_ARGS?.split(/\s+/).filter(Boolean);
  if (!extra?.length || benchWorkerPid) return;
  mkdirSync(join(project, '.loops', '.worker'), { recursive: true });
  const log = openSync(join(project, '.loops', '.worker', 'worker.log'), 'a');
  const child = spawn(process.execPath, [...extra, BIN, 'worker'], { cwd: project, detached: true, stdio: ['ignore', log, log], env: { ...process.env, LL_WORKER_STARTED_BY: 'on-demand' } });
  child.unref();
  benchWorkerPid = child.pid;
}

async function stopBenchWorker() {
  if (!benchWorkerPid) return;
  try {
    process.kill(benchWorkerPid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && procStatus(benchWorkerPid)) {
    if (/State:\s+Z/.test(readFileSync(`/proc/${benchWorkerPid}/status`, 'utf8'))) break;
    await sleep(100);
  }
  if (procStatus(benchWorkerPid)) {
    try {
      process.kill(benchWorkerPid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

async function standardBenchmarks() {
  say(`ll-loop benchmarks (dedicated server ${endpoint.address}, ${cpus().length} cores, load ${report.machine.loadavg_at_start.join(' ')})`);
  if (PARTS.has('cli')) {
    const c = cliLatency({ bin: BIN, project });
    report.cli = c;
    const shown = Object.entries(c.commands).map(([name, r]) => `${name} ${r.median_ms} ms (CPU ${r.cpu_median_ms} ms)${r.within_goal ? '' : ' over'}`);
    say(`  commands without Temporal (median of ${c.runs}, goal ${c.goal_ms} ms): ${shown.join(', ')}`);
  }
  if (PARTS.has('transitions')) {
    report.transitions = {};
    for (const [key, label, quick] of [
      ...(process.env.BENCH_SKIP_REMOTE ? [] : [['remote', 'default timeout (3600 s) → activities', false]]),
      ['local', 'default_timeout: 10 → local activities', true],
    ]) {
      const r = await transitions(quick);
      report.transitions[key] = r;
      say(`  transitions, ${label}: median ${r.median_ms.toFixed(2)} ms/transition (mean ${r.mean_ms.toFixed(2)} ms over ${r.steps} steps, ${r.terminated_by})`);
    }
  }
  if (PARTS.has('first-action')) {
    const f = await firstAction();
    report.first_action = f;
    say(`  ll-loop run → first action (worker up), quick action: median ${f.local.median_ms} ms, max ${f.local.max_ms} ms (runs: ${f.local.runs_ms.join(', ')} ms)`);
    say(`  ll-loop run → first action (worker up), default action: median ${f.remote.median_ms} ms, max ${f.remote.max_ms} ms (runs: ${f.remote.runs_ms.join(', ')} ms)`);
    const b = f.breakdown_median_ms;
    say(
      `    where it goes (median of ${f.breakdown_runs.length} probed runs, ms): node ${b.node_startup_ms}, CLI modules ${b.cli_modules_ms}, ` +
        `before connecting ${b.before_connect_ms}, connecting → workflow started ${b.connect_to_start_ms} (${b.connections_before_start} connections), ` +
        `→ worker has the task ${b.dispatch_ms}, → action ${b.worker_ms}; @temporalio/worker loaded before the start: ${b.worker_sdk_before_start ? 'yes' : 'no'}`,
    );
  }
  if (PARTS.has('spawn')) {
    const perSpawn = await actionSpawns(200);
    report.run_action_ms = round(perSpawn, 2);
    say(`  runAction(bash -c true), no Temporal: mean ${perSpawn.toFixed(2)} ms/run over 200 runs`);
  }
  if (PARTS.has('llm')) {
    const l = await llmOverhead({ dist });
    report.llm = l;
    const shown = Object.entries(l.providers).map(([name, r]) => `${name} median ${r.median_ms} ms, p95 ${r.p95_ms} ms (first ${r.first_ms} ms)${r.within_goal ? '' : ' over'}`);
    say(`  LLM evaluation overhead, fake API answering at once (${l.calls} calls, goal ${l.goal_ms} ms): ${shown.join('; ')}`);
  }
  if (PARTS.has('concurrent')) {
    const c = await concurrentLoops(LOOPS);
    report.concurrent = c;
    say(
      `  ${c.loops} concurrent ${c.states_per_loop}-state loops: ${c.completed}/${c.loops} ended in their terminal state; ${c.transitions} transitions in ${c.wall_s} s = ` +
        `${c.transitions_per_s} transitions/s; worker peak RSS ${c.worker_peak_rss_mb} MB (VmHWM); CPU s: worker ${c.cpu_s.worker}, server ${c.cpu_s.server}, ` +
        `machine ${c.machine_busy_pct}% busy; server peak RSS ${c.server_peak_rss_mb} MB; per loop (mean of ${c.histories_sampled}): ${c.per_loop_mean.workflow_tasks} workflow tasks, ` +
        `${c.per_loop_mean.workflow_task_timeouts} timed out`,
    );
    if (c.not_completed > 0) process.exitCode = 1;
  }
  if (PARKED > 0) {
    const p = await parkedLoops(PARKED);
    report.parked = p;
    say(
      `  ${p.loops} runs parked on a timer (parked after ${p.parked_after_s} s): worker RSS ${p.worker_rss_before_mb} MB → ${p.worker_rss_parked_mb} MB, ` +
        `peak ${p.worker_peak_rss_mb} MB (VmHWM, the worker's whole life)`,
    );
  }
}

try {
  if (process.env.BENCH_LONG) {
    const count = Number(process.env.BENCH_LONG_TRANSITIONS ?? 20_000);
    say(`ll-loop long-loop benchmark (server ${endpoint.address}, ${count} transitions, local activities)`);
    const r = await longLoop(count);
    report.long_loop = { transitions: r.steps, terminated_by: r.terminated_by, total_s: round(r.total / 1000, 1), ms_per_transition: round(r.total / r.steps, 2), temporal_runs: r.runs };
    say(
      `  ${r.steps} transitions, ${r.terminated_by}: ${(r.total / 1000).toFixed(1)} s (${(r.total / r.steps).toFixed(2)} ms/transition); ` +
        `${r.runs} Temporal runs (${r.runs - 1} continue-as-new); captured a.exit_code ${r.captured.a?.exit_code}`,
    );
    if (r.steps !== count) process.exitCode = 1;
  } else await standardBenchmarks();
  report.machine.loadavg_at_end = loadavg().map((l) => Number(l.toFixed(2)));
  if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  // Only what this bench started: its checkout worker (by the pid it recorded) and its server.
  await stopBenchWorker();
  await stopDevServer(serverOptions.dataDir);
  if (process.env.BENCH_KEEP) note(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
  setTimeout(() => process.exit(), 100).unref();
}

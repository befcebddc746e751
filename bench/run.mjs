#!/usr/bin/env node
// `npm run bench`: the benchmarks against the built package (dist/), on the embedded
// Temporal dev server (started or reused exactly as `ll-loop run` does).
//   1. A 1,000-transition shell loop alternating `true`/`false`: median ms per transition
//      (between consecutive state_enter events), for remote and for local activities.
//   2. Time from `ll-loop run` (process spawn) to the first action starting, server already up.
//   3. The cost of one shell action in the activity itself (`runAction`, `bash -c true`), no Temporal.
// BENCH_LONG=1 runs only the long-loop check instead: a 20,000-transition loop (BENCH_LONG_TRANSITIONS)
// of local activities to its end, printing the total time and how many runs continued as new.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const dist = (p) => import(join(root, 'dist', p));
const { resolveEndpoint, resolveTemporalTarget, connectClient, connectWorkerConnection } = await dist('client/temporal/connection.js');
const { createLoopWorker, installQuietRuntime } = await dist('worker/create-worker.js');
const { validateLoop } = await dist('fsm/validate.js');
const { createActivities } = await dist('activities/index.js');

const TRANSITIONS = Number(process.env.BENCH_TRANSITIONS ?? 1000);
const project = mkdtempSync(join(tmpdir(), 'll-loop-bench-'));
mkdirSync(join(project, '.loops'), { recursive: true });
installQuietRuntime('ERROR');
const dataDir = join(process.env.LL_BENCH_SERVER_DIR ?? join(root, '.loops', '.temporal'));
const endpoint = await resolveEndpoint(resolveTemporalTarget(), { dataDir });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

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
  return { steps: result.steps, terminated_by: result.terminated_by, median: median(deltas), mean: total / result.steps };
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

async function firstAction() {
  writeFileSync(
    join(project, '.loops', 'first.yaml'),
    'name: first\ndescription: time to first action\ninitial: go\nstates:\n  go:\n    action: "date +%s%N > first-action.ns"\n    next: done\n  done:\n    terminal: true\n',
  );
  const times = [];
  for (let i = 0; i < 5; i += 1) {
    rmSync(join(project, 'first-action.ns'), { force: true });
    const t0 = Date.now() * 1e6 + Math.round((performance.now() % 1) * 1e6);
    const spawnedAt = process.hrtime.bigint();
    const wallAtSpawn = BigInt(Date.now()) * 1_000_000n;
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(root, 'bin', 'll-loop.js'), 'run', 'first'], {
        cwd: project,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, LL_TEMPORAL_DATA_DIR: dataDir },
      });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ll-loop run exited ${code}`))));
    });
    void t0;
    void spawnedAt;
    const actionNs = BigInt(readFileSync(join(project, 'first-action.ns'), 'utf8').trim());
    times.push(Number(actionNs - wallAtSpawn) / 1e6);
  }
  return times;
}

try {
  if (process.env.BENCH_LONG) {
    const count = Number(process.env.BENCH_LONG_TRANSITIONS ?? 20_000);
    console.log(`ll-loop long-loop benchmark (server ${endpoint.address}, ${count} transitions, local activities)`);
    const r = await longLoop(count);
    console.log(
      `  ${r.steps} transitions, ${r.terminated_by}: ${(r.total / 1000).toFixed(1)} s (${(r.total / r.steps).toFixed(2)} ms/transition); ` +
        `${r.runs} Temporal runs (${r.runs - 1} continue-as-new); captured a.exit_code ${r.captured.a?.exit_code}`,
    );
    if (r.steps !== count) process.exitCode = 1;
  } else await standardBenchmarks();
} finally {
  rmSync(project, { recursive: true, force: true });
  setTimeout(() => process.exit(), 100).unref();
}

async function standardBenchmarks() {
  console.log(`ll-loop benchmarks (server ${endpoint.address}, ${TRANSITIONS} transitions)`);
  for (const [label, quick] of [...(process.env.BENCH_SKIP_REMOTE ? [] : [['default timeout (3600 s) → activities', false]]), ['default_timeout: 10 → local activities', true]]) {
    const r = await transitions(quick);
    console.log(`  transitions, ${label}: median ${r.median.toFixed(2)} ms/transition (mean ${r.mean.toFixed(2)} ms over ${r.steps} steps, ${r.terminated_by})`);
  }
  const times = await firstAction();
  console.log(`  ll-loop run → first action: median ${median(times).toFixed(0)} ms (runs: ${times.map((t) => t.toFixed(0)).join(', ')} ms)`);
  const perSpawn = await actionSpawns(200);
  console.log(`  runAction(bash -c true), no Temporal: mean ${perSpawn.toFixed(2)} ms/run over 200 runs`);
}

/** Mean wall time of `runAction` on `bash -c true`, called directly (outside any worker). */
async function actionSpawns(n) {
  const { runAction } = createActivities();
  const input = { instanceId: 'bench', state: 'spawn', step: 1, kind: 'shell', shell: { script: 'true', vars: {}, env: {} }, cwd: project, timeout_s: 30 };
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) await runAction(input);
  return (performance.now() - t0) / n;
}

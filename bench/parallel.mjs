// `npm run bench -- --only parallel`: a parallel state's fan-out on a worker in this process.
// 100 items whose sub-loop is one state `sleep 0.5`, max_workers 10 (ideal 5 s, goal 7.5 s from
// fanout_start to fanout_join on 2 cores), and 1,000 items of `true` at max_workers 50: wall time,
// overhead per item ((wall - ideal) / items a lane runs, and / items), ms per item (against a quick
// transition: `--only transitions,parallel`), and this process's peak RSS (VmHWM: the worker runs here).
// Quick items run in the parent's lanes (the `laneItems` rule); each size also runs as child runs
// (the rule off, as older releases ran them) and with remote actions (child runs: not quick).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import {
  connectClient,
  connectWorkerConnection,
  CURRENT_RUN_RULES,
  createLoopWorker,
  endpoint,
  project,
  round,
  validateLoop,
} from './context.mjs';

function peakRssMb() {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return line ? round(Number(line.replace(/\D+/g, '')) / 1024, 1) : undefined;
}

/**
 * `local`: the item's state has `timeout: 10`, so `ll-loop run`'s rule (shell actions with a
 * timeout of at most 30 s run as local activities) makes its action local: one workflow task per
 * child instead of two and an activity round trip. Without it the action is an ordinary activity
 * (the default timeout of 3600 s), as a long action would be.
 */
export async function fanOut({ items, action, workers, seconds, local, lanes, histories = false }) {
  mkdirSync(join(project, '.loops'), { recursive: true });
  const loop = `bench-item-${local ? 'local' : 'remote'}`;
  writeFileSync(
    join(project, '.loops', `${loop}.yaml`),
    `name: ${loop}\ndescription: one item\ninitial: run\nstates:\n  run: { action: "${action}", ${local ? 'timeout: 10, ' : ''}next: done }\n  done: { terminal: true }\n`,
  );
  const def = validateLoop({
    name: 'bench-parallel',
    description: 'fan-out',
    initial: 'fan',
    states: {
      fan: {
        parallel: { items: Array.from({ length: items }, (_, i) => i), loop, max_workers: workers },
        on_yes: 'done',
        on_no: 'done',
      },
      done: { terminal: true },
    },
  }).definition;
  const { client, connection } = await connectClient(endpoint);
  const native = await connectWorkerConnection(endpoint);
  const taskQueue = `bench-parallel-${process.pid}-${items}`;
  const workflowId = `bench-parallel-${Date.now()}-${items}-${local ? 'local' : 'remote'}-${lanes ? 'lanes' : 'children'}`;
  const { worker, events } = await createLoopWorker({ connection: native, namespace: endpoint.namespace, taskQueue });
  const at = {};
  events.subscribe(workflowId, (e) => {
    if (e.event === 'fanout_start' || e.event === 'fanout_join') at[e.event] = performance.now();
  });
  const result = await worker.runUntil(async () => {
    const handle = await client.workflow.start('loopWorkflow', {
      workflowId,
      taskQueue,
      // As `ll-loop run` starts a run: this release's rules, local activities up to 30 s.
      args: [
        {
          definition: def,
          options: { ...CURRENT_RUN_RULES, laneItems: lanes, cwd: project, localActivityMaxTimeoutS: 30 },
        },
      ],
      memo: { cwd: project },
    });
    return handle.result();
  });
  // Every run of the chain (continue-as-new) by its history's length and size: Temporal's limits
  // are 51,200 events and 50 MB per run.
  const runs = [];
  if (histories)
    for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      runs.push({ events: run.historyLength, mb: round(Number(run.historySize ?? 0) / 1e6, 2) });
  await events.close();
  await native.close();
  await connection.close();
  const wallS = (at.fanout_join - at.fanout_start) / 1000;
  const ideal = Math.ceil(items / workers) * seconds || 0;
  const joined = result.captured.fan;
  return {
    items,
    max_workers: workers,
    action,
    actions: local ? 'local (timeout: 10)' : 'activity (default timeout)',
    items_as: lanes && local ? 'lanes' : 'child runs',
    load: loadavg().map((l) => round(l, 1)),
    succeeded: joined?.succeeded,
    wall_s: round(wallS, 2),
    ideal_s: ideal,
    // Over the ideal, per item: each of `workers` lanes runs items one after the other, so an
    // item's own overhead is the excess divided by the items of a lane (the 0.25 s goal:
    // 2.5 s over 10 items a lane); and the excess spread over every item.
    overhead_per_item_s: round((wallS - ideal) / Math.ceil(items / workers), 3),
    overhead_per_item_spread_s: round((wallS - ideal) / items, 3),
    ms_per_item: round((wallS * 1000) / items, 2),
    worker_peak_rss_mb: peakRssMb(),
    ...(histories
      ? {
          runs: runs.length,
          largest_history_events: Math.max(...runs.map((r) => r.events)),
          largest_history_mb: Math.max(...runs.map((r) => r.mb)),
        }
      : {}),
  };
}

export async function parallelBench() {
  const out = [];
  // Lanes first: right after the quick transitions they are compared with, on the same load.
  for (const [local, lanes] of [
    [true, true],
    [true, false],
    [false, false],
  ]) {
    out.push(await fanOut({ items: 100, action: 'sleep 0.5', workers: 10, seconds: 0.5, local, lanes }));
    out.push(await fanOut({ items: 1000, action: 'true', workers: 50, seconds: 0, local, lanes }));
  }
  return out;
}

/**
 * `npm run bench -- --only fanout10k`: 10,000 items of `true` in lanes (max_workers 50), then as
 * child runs at max_workers 50 with `BENCH_FANOUT10K_CHILDREN=1`: wall time, each item once
 * (succeeded), this process's peak RSS, and the chain's runs with the largest history.
 */
export async function fanout10kBench() {
  const items = Number(process.env.BENCH_FANOUT10K_ITEMS ?? 10_000);
  const out = [
    await fanOut({ items, action: 'true', workers: 50, seconds: 0, local: true, lanes: true, histories: true }),
  ];
  if (process.env.BENCH_FANOUT10K_CHILDREN)
    out.push(
      await fanOut({ items, action: 'true', workers: 50, seconds: 0, local: true, lanes: false, histories: true }),
    );
  return out;
}

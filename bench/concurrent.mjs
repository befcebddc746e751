// `npm run bench` part `concurrent`: N 10-state loops started at once on the checkout's worker.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  benchWorker,
  connectClient,
  cpuSeconds,
  dist,
  endpoint,
  machineJiffies,
  note,
  procStatus,
  project,
  round,
  say,
  serverPid,
  sleep,
  SpawnerMeter,
  spawnProfiledWorker,
  spawnerOf,
  wall,
} from './context.mjs';

const TEN_STATES = 10;

/**
 * `target`: the server (`endpoint`, its process `serverPid`, and the processes of its database,
 * `databasePids()`, when it has one) and the project whose checkout worker runs the loops, recorded in
 * `worker` (stopped by the bench at the end); default: the bench's dev server and project.
 */
export async function concurrentLoops(
  count,
  target = { endpoint, project, serverPid, databasePids: () => [], worker: benchWorker },
) {
  const { endpoint, project, serverPid } = target;
  const { checkoutAt } = await dist('host/checkout.js');
  const { ensureCheckoutWorker } = await dist('runs/workers/checkout-worker.js');
  const { startLoopRun, searchAttributesAvailable } = await dist('runs/start/start-run.js');
  const { loadLoop } = await dist('loader/load.js');
  // s1 → s2 → … → s10 → done, each a quick shell action (local activities).
  const states = Array.from(
    { length: TEN_STATES },
    (_, i) => `  s${i + 1}:\n    action: "true"\n    next: ${i + 1 < TEN_STATES ? `s${i + 2}` : 'done'}\n`,
  ).join('');
  writeFileSync(
    join(project, '.loops', 'ten.yaml'),
    `name: ten\ndescription: ten quick states\ninitial: s1\ndefault_timeout: 10\nstates:\n${states}  done:\n    terminal: true\n`,
  );
  const loaded = loadLoop('ten', project, { requireParameters: true });
  if (!loaded.definition) throw new Error(`ten.yaml: ${JSON.stringify(loaded.diagnostics)}`);

  if (target.worker === benchWorker) spawnProfiledWorker();
  const worker = await ensureCheckoutWorker(project, endpoint.address);
  target.worker.pid = worker.pid;
  const queue = checkoutAt(project).queue;
  if (worker.queue !== queue) throw new Error(`the worker polls ${worker.queue}, not ${queue}`);
  const { client, connection } = await connectClient(endpoint);
  const searchAttributes = await searchAttributesAvailable(endpoint, connection);
  const batch = `ten-${Date.now()}`;

  const databaseCpu = () => target.databasePids().reduce((n, pid) => n + (cpuSeconds(pid) ?? 0), 0);
  const cpu0 = {
    worker: cpuSeconds(worker.pid),
    server: cpuSeconds(serverPid),
    database: databaseCpu(),
    machine: machineJiffies(),
  };
  const rss0 = procStatus(worker.pid);
  let peakRssKb = rss0?.rss_kb ?? 0;
  // The spawner's CPU and memory are the quick actions' cost too; its reaped children's CPU is the
  // actions' own (`bash` and what it ran).
  const spawner = new SpawnerMeter(() => spawnerOf(worker.pid));
  const sampleSpawner = (before = false) => spawner.sample(before);
  sampleSpawner(true);
  let ticks = 0;
  const sampler = setInterval(() => {
    const s = procStatus(worker.pid);
    if (s) peakRssKb = Math.max(peakRssKb, s.rss_kb);
    if ((ticks += 1) % 4 === 0) sampleSpawner();
  }, 250);

  const t0 = wall();
  const ids = [];
  let next = 0;
  const startOne = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const workflowId = `${batch}-${i}`;
      await startLoopRun({
        client,
        definition: loaded.definition,
        file: loaded.file,
        cwd: project,
        taskQueue: queue,
        searchAttributes,
        started: new Date(),
        workflowId,
      });
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
      note(
        `  … ${count - open}/${count} ended after ${((wall() - t0) / 1000).toFixed(0)} s (worker RSS ${Math.round((procStatus(worker.pid)?.rss_kb ?? 0) / 1024)} MB)`,
      );
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
  sampleSpawner();
  const cpu1 = {
    worker: cpuSeconds(worker.pid),
    server: cpuSeconds(serverPid),
    database: databaseCpu(),
    machine: machineJiffies(),
  };
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
  const histories = await Promise.all(
    sampleIds.map(async (id) => (await client.workflow.getHandle(id).fetchHistory()).events ?? []),
  );
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
    spawner_peak_rss_mb: round(spawner.peakKb / 1024),
    // The worker's memory with its spawner's (a process of its own since bursts run there): the
    // sum of their peaks, a bound on what the two held at once.
    worker_and_spawner_peak_rss_mb: round(((status?.hwm_kb ?? 0) + spawner.peakKb) / 1024),
    server_peak_rss_mb: round((procStatus(serverPid)?.hwm_kb ?? 0) / 1024),
    cpu_s: {
      worker: round(cpu1.worker - cpu0.worker, 1),
      server: round(cpu1.server - cpu0.server, 1),
      spawner: round(spawner.cpu, 1),
      // The actions' processes, started by the spawner (an action it did not start is not in it).
      actions: round(spawner.actions, 1),
      ...(cpu1.database > 0 ? { database: round(cpu1.database - cpu0.database, 1) } : {}),
    },
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

// `npm run bench` part `transitions` (and BENCH_LONG's long loop): shell loops on a worker in this process.
import {
  CURRENT_RUN_RULES,
  TRANSITIONS,
  childCpuSeconds,
  connectClient,
  connectWorkerConnection,
  cpuSeconds,
  createLoopWorker,
  dist,
  endpoint,
  ended,
  median,
  project,
  round,
  validateLoop,
} from './context.mjs';

/** The heartbeat timeout of the remote lane's activities (a run without the `heartbeatTimeoutS` rule). */
export const { DEFAULT_HEARTBEAT_TIMEOUT_S: REMOTE_HEARTBEAT_S } = await dist('workflows/activity-proxies.js');

/**
 * `quick`: actions with a 10 s timeout (the quick lane); `rules`: the run rules `ll-loop run` gives
 * (with them, quick actions run in bursts: workflows/burst.ts), else none (one local activity per action).
 * `at`: the server to measure (default: the bench's dev server); `cwd`: the project the runs name.
 */
export async function transitions(quick, rules = false, at = endpoint, cwd = project) {
  const localMax = 30;
  const { client, connection } = await connectClient(at);
  const native = await connectWorkerConnection(at);
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
  const taskQueue = `bench-${process.pid}-${quick}-${rules}`;
  const workflowId = `bench-alternate-${Date.now()}-${quick ? (rules ? 'bursts' : 'local') : 'remote'}`;
  const { worker, events } = await createLoopWorker({ connection: native, namespace: at.namespace, taskQueue });
  const enters = [];
  events.subscribe(workflowId, (e) => {
    if (e.event === 'state_enter') enters.push(performance.now());
  });
  const { quickSpawnerPid } = await dist('activities/action-spawner.js');
  // The spawner's CPU (quick actions in bursts start there): counted as it goes, since it may be let go.
  let spawnerCpu = 0;
  // Its reaped children's: the actions' own processes.
  let actionsCpu = 0;
  let spawnerAt;
  const sampleSpawner = (before = false) => {
    const pid = quickSpawnerPid();
    const s = pid === undefined ? undefined : cpuSeconds(pid);
    const c = pid === undefined ? undefined : childCpuSeconds(pid);
    if (pid === undefined || s === undefined || c === undefined) return;
    // A spawner seen before the run counts from then; one started during it, from its start.
    if (!before) spawnerCpu += spawnerAt?.pid === pid ? s - spawnerAt.s : s;
    if (!before) actionsCpu += spawnerAt?.pid === pid ? c - spawnerAt.c : c;
    spawnerAt = { pid, s, c };
  };
  sampleSpawner(true);
  const sampler = setInterval(sampleSpawner, 200);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const result = await worker.runUntil(async () => {
    const handle = await client.workflow.start('loopWorkflow', {
      workflowId,
      taskQueue,
      args: [
        {
          definition: def,
          options: {
            cwd,
            localActivityMaxTimeoutS: localMax,
            ...(rules ? CURRENT_RUN_RULES : {}),
          },
        },
      ],
      memo: process.env.BENCH_NO_FILES ? {} : { cwd },
    });
    return ended(handle);
  });
  const total = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  sampleSpawner();
  clearInterval(sampler);
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await events.close();
  await native.close();
  await connection.close();
  const deltas = enters.slice(1).map((t, i) => t - enters[i]);
  return {
    steps: result.steps,
    terminated_by: result.terminated_by,
    // In bursts a burst's events arrive together: the mean is the figure, the median says little.
    median_ms: round(median(deltas), 2),
    mean_ms: round(total / result.steps, 2),
    // This process's CPU (the worker, its SDK threads, the client): the spawned actions' own is not in it.
    worker_cpu_ms: round((cpu.user + cpu.system) / 1000 / result.steps, 2),
    // The action spawner's (activities/action-spawner.ts), which starts a burst's processes.
    spawner_cpu_ms: round((spawnerCpu * 1000) / result.steps, 2),
    // The actions' own processes started by the spawner (`bash`; before, `sh` and `bash`).
    actions_cpu_ms: round((actionsCpu * 1000) / result.steps, 2),
    history_events_per_transition: round((history.events?.length ?? 0) / result.steps, 2),
  };
}

/** Issue 3 "Long and endless loops": a long loop completes, continuing as new along the way. */
export async function longLoop(count) {
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
  const cpuBefore = process.cpuUsage();
  const result = await worker.runUntil(async () => {
    const handle = await client.workflow.start('loopWorkflow', {
      workflowId,
      taskQueue,
      args: [{ definition: def, options: { cwd: project, localActivityMaxTimeoutS: 30 } }],
      memo: { cwd: project },
    });
    return ended(handle);
  });
  const total = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await events.close();
  let runs = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs += 1;
  await native.close();
  await connection.close();
  return { ...result, total, runs };
}

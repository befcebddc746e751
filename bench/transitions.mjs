// `npm run bench` part `transitions` (and BENCH_LONG's long loop): shell loops on a worker in this process.
import {
  TRANSITIONS,
  connectClient,
  connectWorkerConnection,
  createLoopWorker,
  endpoint,
  median,
  project,
  round,
  validateLoop,
} from './context.mjs';

/** `at`: the server to measure (default: the bench's dev server); `cwd`: the project the runs name. */
export async function transitions(quick, at = endpoint, cwd = project) {
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
  const taskQueue = `bench-${process.pid}-${quick}`;
  const workflowId = `bench-alternate-${Date.now()}-${quick ? 'local' : 'remote'}`;
  const { worker, events } = await createLoopWorker({ connection: native, namespace: at.namespace, taskQueue });
  const enters = [];
  events.subscribe(workflowId, (e) => {
    if (e.event === 'state_enter') enters.push(performance.now());
  });
  const started = performance.now();
  const result = await worker.runUntil(async () => {
    const handle = await client.workflow.start('loopWorkflow', {
      workflowId,
      taskQueue,
      args: [{ definition: def, options: { cwd, localActivityMaxTimeoutS: localMax } }],
      memo: process.env.BENCH_NO_FILES ? {} : { cwd },
    });
    return handle.result();
  });
  const total = performance.now() - started;
  await events.close();
  await native.close();
  await connection.close();
  const deltas = enters.slice(1).map((t, i) => t - enters[i]);
  return {
    steps: result.steps,
    terminated_by: result.terminated_by,
    median_ms: round(median(deltas), 2),
    mean_ms: round(total / result.steps, 2),
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

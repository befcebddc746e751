// `npm run bench` part `llm`, end to end (issue 13: "an LLM evaluation adds at most 50 ms beyond
// the model call itself"): a real loop on the bench's embedded Temporal server, a worker in this
// process, each pass a quick shell action judged by an `llm_structured` evaluation through the
// `anthropic` provider against a fake Messages API answering at once — against the same loop
// judged by `exit_code`. The difference of the per-pass times (between consecutive state_enter
// events, median and p95) is what one evaluation adds: the evaluateLlm activity's round trip
// through the server, the SDK and the loopback HTTP call, reading the verdict, the core judging it.
import { fakeApi } from './llm-overhead.mjs';
import {
  QUICK,
  connectClient,
  connectWorkerConnection,
  createLoopWorker,
  endpoint,
  ended,
  median,
  project,
  round,
  validateLoop,
} from './context.mjs';

const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

/** Two states judging each other's quick action, `passes` passes; `judge` is each state's evaluate. */
function definition(name, passes, judge) {
  const state = (next) => ({ action: 'true', evaluate: judge, on_yes: next, on_no: next, on_error: 'failed' });
  const { definition: def, diagnostics } = validateLoop({
    name,
    description: 'bench: one judged action per pass',
    initial: 'a',
    max_iterations: passes,
    max_steps: passes,
    default_timeout: 10,
    states: { a: state('b'), b: state('a'), done: { terminal: true }, failed: { terminal: true, failure: true } },
  });
  if (!def) throw new Error(`bench llm: ${JSON.stringify(diagnostics)}`);
  return def;
}

/** Runs `def` to its end on a worker of its own; the ms between consecutive state entries. */
async function passTimes(def, env) {
  const { client, connection } = await connectClient(endpoint);
  const native = await connectWorkerConnection(endpoint);
  const taskQueue = `bench-llm-${def.name}-${process.pid}`;
  const workflowId = `${def.name}-${Date.now()}`;
  const { worker, events } = await createLoopWorker({
    connection: native,
    namespace: endpoint.namespace,
    taskQueue,
    activityDeps: { env },
  });
  const enters = [];
  events.subscribe(workflowId, (e) => {
    if (e.event === 'state_enter') enters.push(performance.now());
  });
  const result = await worker.runUntil(async () => {
    // Shell actions up to 30 s are local activities, as `ll-loop run` runs them; the evaluation is an activity.
    const handle = await client.workflow.start('loopWorkflow', {
      workflowId,
      taskQueue,
      args: [{ definition: def, options: { cwd: project, localActivityMaxTimeoutS: 30 } }],
    });
    return ended(handle);
  });
  await events.close();
  await native.close();
  await connection.close();
  if (result.final_state === 'failed')
    throw new Error(`bench llm: ${def.name} ended in failure: ${result.error ?? ''}`);
  // The first pass includes the worker's warm-up (SDK modules loading): left out.
  return enters.slice(2).map((t, i) => t - enters[i + 1]);
}

/** Per-pass median and p95 with and without the LLM evaluation, and their difference (ms). */
export async function llmEndToEnd({ passes = QUICK ? 60 : 200, goalMs = 50 } = {}) {
  const server = await fakeApi();
  const url = `http://127.0.0.1:${server.address().port}`;
  try {
    const env = { ...process.env, ANTHROPIC_API_KEY: 'bench-key' };
    const judged = await passTimes(
      definition('bench-llm-judged', passes, {
        type: 'llm_structured',
        llm: { provider: 'anthropic', model: 'bench', base_url: url },
      }),
      env,
    );
    const plain = await passTimes(definition('bench-llm-exit', passes, { type: 'exit_code' }), env);
    const m = { judged: median(judged), plain: median(plain) };
    const p = { judged: p95(judged), plain: p95(plain) };
    return {
      goal_ms: goalMs,
      passes,
      llm_structured: { median_ms: round(m.judged, 2), p95_ms: round(p.judged, 2) },
      exit_code: { median_ms: round(m.plain, 2), p95_ms: round(p.plain, 2) },
      added_median_ms: round(m.judged - m.plain, 2),
      added_p95_ms: round(p.judged - p.plain, 2),
      within_goal: m.judged - m.plain <= goalMs,
    };
  } finally {
    server.close();
  }
}

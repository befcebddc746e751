// `npm run bench -- --only outcomes`: what the built-in loops get done on real projects, and
// whether an agent can game them (issue 51). Every case of bench/outcomes/matrix.mjs: the
// fixture projects (bench/outcomes/projects.mjs: Python, TypeScript, Go, with real defects their
// own tools report), each loop `ll-loop init --yes` writes for them (and check-matrix), each
// scripted agent (bench/outcomes/agent.mjs: fixer, reader, noop, cheater, flaky) as the host CLI.
// A run is one workflow on the bench's server, served by a worker in this process with the run
// rules `ll-loop run` gives. Figures: the projects brought to green (loop done, the oracle agrees),
// false greens (loop done, the oracle does not), agent calls and passes per case, and ll-loop's
// own time per pass: the run's duration less the time its actions' processes ran, from its events,
// and where it goes (workflow tasks, activities around their processes: bench/outcomes/own-split.mjs).
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT, AGENTS, allCases, runCase } from './outcomes/matrix.mjs';
import { PROJECTS } from './outcomes/projects.mjs';
import { ownSplit } from './outcomes/own-split.mjs';
import {
  CURRENT_RUN_RULES,
  connectClient,
  connectWorkerConnection,
  createLoopWorker,
  dist,
  endpoint,
  median,
  note,
  round,
  tmp,
} from './context.mjs';

const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

/** The loop as `ll-loop run NAME` loads it in `cwd` (the project's .loops/ first). */
async function loader() {
  const { loadLoop } = await dist('loader/load.js');
  const { formatDiagnostic } = await dist('fsm/diagnostics.js');
  return (name, cwd) => {
    const loaded = loadLoop(name, cwd, { requireParameters: true });
    if (!loaded.definition) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
    return loaded.definition;
  };
}

/** Share of `rows` for which `pick` holds, in %. */
const pct = (rows, pick) => (rows.length ? round((100 * rows.filter(pick).length) / rows.length, 1) : undefined);

/** The matrix's figures: per agent, and the goals' three (fixer green, false greens, own time). */
export function summarise(cases) {
  const by = (agent) => cases.filter((c) => c.agent === agent);
  const perAgent = Object.fromEntries(
    AGENTS.map((agent) => {
      const rows = by(agent);
      return [
        agent,
        {
          cases: rows.length,
          green_pct: pct(rows, (c) => c.green),
          false_greens: rows.filter((c) => c.false_green).length,
          mean_agent_calls: round(rows.reduce((s, c) => s + c.agent_calls, 0) / Math.max(1, rows.length), 2),
          mean_iterations: round(rows.reduce((s, c) => s + (c.iterations ?? 0), 0) / Math.max(1, rows.length), 2),
          ends: Object.fromEntries(
            [...new Set(rows.map((c) => c.final_state))].map((s) => [
              s,
              rows.filter((c) => c.final_state === s).length,
            ]),
          ),
        },
      ];
    }),
  );
  const own = cases.map((c) => c.own_per_pass_ms).filter((x) => x !== undefined);
  const passes = cases.reduce((sum, c) => sum + Math.max(1, c.iterations ?? 1), 0);
  const ownTotal = cases.reduce((sum, c) => sum + (c.own_ms ?? 0), 0);
  const gamed = cases.filter((c) => c.agent === 'cheater' || c.agent === 'noop');
  const split = (part) =>
    round(cases.reduce((sum, c) => sum + (c.own_split_ms?.[part] ?? 0), 0) / Math.max(1, passes), 1);
  const hop = (part) =>
    round(cases.reduce((sum, c) => sum + (c.own_split_ms?.hops_ms?.[part] ?? 0), 0) / Math.max(1, passes), 1);
  return {
    cases: cases.length,
    projects: PROJECTS.map((p) => p.name),
    fixer_green_pct: pct(by('fixer'), (c) => c.green),
    false_greens: gamed.filter((c) => c.false_green).length,
    false_greens_any_agent: cases.filter((c) => c.false_green).length,
    own_per_pass_ms: {
      mean: round(ownTotal / Math.max(1, passes), 1),
      median: round(median(own), 1),
      p95: round(p95(own), 1),
      max: round(Math.max(...own), 1),
    },
    own_split_per_pass_ms: {
      workflow_tasks: split('workflow_tasks_ms'),
      activities: split('activities_ms'),
      rest: split('rest_ms'),
      hops: {
        task_dispatch: hop('task_dispatch'),
        task_run: hop('task_run'),
        activity_dispatch: hop('activity_dispatch'),
        activity_work: hop('activity_work'),
      },
    },
    per_agent: perAgent,
    per_case: cases,
  };
}

/** Runs the whole matrix (or the cases `only` keeps) on one worker; returns summarise's figures. */
export async function outcomesBench({ only = () => true } = {}) {
  const { planInit, writePlan, loopText } = await dist('client/init/plan.js');
  const loadLoop = await loader();
  const { client, connection } = await connectClient(endpoint);
  const native = await connectWorkerConnection(endpoint);
  const taskQueue = `bench-outcomes-${process.pid}`;
  const env = { ...process.env, LL_HOST_CLI: AGENT };
  const { worker, events } = await createLoopWorker({
    connection: native,
    namespace: endpoint.namespace,
    taskQueue,
    activityDeps: { env },
  });
  let n = 0;
  /** The last run's history, for its own time's split. */
  let lastHistory = [];
  let lastSeen = [];
  const runLoop = async (definition, cwd) => {
    const workflowId = `bench-outcomes-${process.pid}-${(n += 1)}`;
    const seen = [];
    let completed;
    const complete = new Promise((resolve) => (completed = resolve));
    events.subscribe(workflowId, (e) => {
      if (e.subloop) return;
      seen.push(e);
      if (e.event === 'loop_complete') completed();
    });
    const handle = await client.workflow.start('loopWorkflow', {
      workflowId,
      taskQueue,
      args: [{ definition, options: { cwd, localActivityMaxTimeoutS: 30, ...CURRENT_RUN_RULES } }],
      memo: { cwd, loop: definition.name },
    });
    // A failure terminal closes the workflow as failed: the outcome is in the events either way,
    // whose last may be delivered just after the close (a run without one is reported as such).
    await handle.result().catch(() => undefined);
    await Promise.race([complete, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    lastHistory = (await handle.fetchHistory()).events ?? [];
    lastSeen = seen;
    return seen;
  };
  const deps = { planInit, writePlan, loopText, loadLoop, runLoop };
  const cases = [];
  try {
    await worker.runUntil(async () => {
      for (const c of allCases(PROJECTS).filter(only)) {
        const dir = mkdtempSync(join(tmp, `outcome-${c.project.name}-${c.loop}-${c.agent}-`));
        const r = await runCase(deps, { ...c, dir });
        if (r.own_ms !== undefined) r.own_split_ms = ownSplit(lastHistory, r.own_ms, lastSeen);
        note(
          `    ${r.project} ${r.loop} ${r.agent}: ${r.final_state}${r.false_green ? ' (FALSE GREEN)' : ''}, ` +
            `${r.agent_calls} agent calls, ${r.iterations} passes, own ${r.own_per_pass_ms} ms/pass ` +
            `(tasks ${r.own_split_ms?.workflow_tasks_ms}, activities ${r.own_split_ms?.activities_ms}, rest ${r.own_split_ms?.rest_ms} ms)`,
        );
        cases.push(r);
      }
    });
  } finally {
    await events.close();
    await native.close();
    await connection.close();
  }
  return summarise(cases);
}

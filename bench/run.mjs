#!/usr/bin/env node
// `npm run bench`: the benchmarks against the built package (dist/), on a dedicated
// embedded Temporal dev server this script starts in a temporary directory (LL_TEMPORAL_PORT,
// LL_TEMPORAL_UI_PORT, LL_TEMPORAL_DATA_DIR) and stops at the end, with the checkout worker it used.
//   0. cli: wall time of `ll-loop --help`, `validate`, `show` and `list` (bench/cli-latency.mjs), goal 0.3 s.
//   1. transitions: a 1,000-transition shell loop alternating `true`/`false`: median ms per
//      transition (between consecutive state_enter events), remote and local activities, on a
//      worker in this process.
//   2. first-action: time from spawning `ll-loop run` to its first action, the checkout's worker
//      already running; for a quick action (a local activity) and a default one (an activity),
//      the same with every core held by a busy process (the machine loaded), and a breakdown of
//      where the time goes (bench/first-action-probe.mjs, the run's history).
//   2a. mcp: an MCP client's start_run (`ll-loop mcp` over stdio) → the run's first action, the
//      worker up (bench/mcp.mjs), goal 0.3 s.
//   2b. follow: a 300-state quick loop followed in the foreground and run in the background, by
//      turns (run time, the follower's and the worker's CPU), a one-state loop from `ll-loop run`
//      to the prompt, and the checkout worker's RSS once idle (bench/follow.mjs).
//   2c. background: 100 `ll-loop run --background` commands, one every 0.1 s, the worker up: each
//      command's time to exit (p50/p95/max, goal ≤ 1 s) and the time until every run had started,
//      beside `node -e 0` spawned the same way and the commands' and worker's CPU (bench/background.mjs).
//   3. spawn: the cost of one shell action in the activity itself (`runAction`, `bash -c true`).
//   3b. llm: what an API provider's LLM evaluation adds beyond the model call, goal 50 ms: end to end
//      (bench/llm-e2e.mjs: a loop judged by llm_structured against a fake API answering at once,
//      versus exit_code, per pass) and the activity alone (bench/llm-overhead.mjs).
// Each part is a module of bench/; bench/context.mjs holds the flags, the server and the helpers.
//   4. concurrent: N (default 1,000) 10-state loops of quick actions started at once on the
//      checkout's worker (runs/start/start-run.ts, the queue of host/checkout.ts): all must end
//      in their terminal state; transitions per second, peak RSS of the worker (VmHWM) and CPU
//      time of the worker and the server.
//   4b. ui (only with --only ui): `ll-loop ui` in Chromium: transition → lit state in the page, and
//      the runs page's first load with 1,000 runs (bench/ui.mjs).
//   5. parked (only with --parked N or --only parked, before cold): N loops parked on a 15-minute backoff, each held in the
//      checkout worker's cache (up to its limit): the worker's RSS with that many open runs.
//   5b. outcomes (only with --only outcomes): the built-in loops on fixture projects in Python,
//      TypeScript and Go with scripted agents (fixer, reader, noop, cheater, flaky): projects
//      brought to green, false greens, agent calls, ll-loop's own time per pass (bench/outcomes.mjs).
//   6. cold (last: it stops the bench's server): a one-state loop from `ll-loop run` to the prompt
//      with the checkout's worker down, and with the server down too (bench/cold.mjs).
// Flags (--help lists them): --json (one JSON object on stdout, with the goals it judges:
// bench/goals.mjs; progress on stderr), --quick (development: 100 loops, 200 transitions),
// --loops N, --only a,b (default cli, transitions, first-action, follow, background, spawn, llm, concurrent, cold;
// also parked, ui, parallel: a parallel state's fan-out, bench/parallel.mjs; fanout10k: 10,000 items; human;
// tracing: the 1,000-transition loop untraced and traced into a real Jaeger, bench/tracing.mjs),
// --first-runs N (default 5), --parked N.
// --only cluster: transitions, first action and --loops N (default 100) concurrent loops on a real
// cluster (Temporal server on PostgreSQL, as `npm run test:cluster` starts it) and on the dev
// server, side by side (bench/cluster.mjs; needs Go, PostgreSQL or root to install it).
// BENCH_LONG=1 runs only the long-loop check instead: a 20,000-transition loop (BENCH_LONG_TRANSITIONS)
// of local activities to its end, printing the total time and how many runs continued as new.
// Env: BENCH_TRANSITIONS, BENCH_SKIP_REMOTE, BENCH_NO_FILES as before; LL_TEMPORAL_CLI to use a
// temporal binary already on the machine.
import { cpus, loadavg } from 'node:os';
import { rmSync } from 'node:fs';
import { cliLatency } from './cli-latency.mjs';
import { llmOverhead } from './llm-overhead.mjs';
import { llmEndToEnd } from './llm-e2e.mjs';
import { coldStarts } from './cold.mjs';
import { concurrentLoops } from './concurrent.mjs';
import { firstAction } from './first-action.mjs';
import { followCost } from './follow.mjs';
import { backgroundStarts } from './background.mjs';
import { parkedLoops } from './parked.mjs';
import { humanBench } from './human.mjs';
import { uiBench } from './ui.mjs';
import { fanout10kBench, parallelBench } from './parallel.mjs';
import { clusterBench } from './cluster.mjs';
import { tracingBench } from './tracing.mjs';
import { mcpStart } from './mcp.mjs';
import { outcomesBench } from './outcomes.mjs';
import { REMOTE_HEARTBEAT_S, longLoop, transitions } from './transitions.mjs';
import { goalLines, judgeGoals } from './goals.mjs';
import {
  BIN,
  LOOPS,
  PARKED,
  PARTS,
  createActivities,
  dist,
  endpoint,
  flags,
  note,
  project,
  report,
  round,
  say,
  serverOptions,
  sleep,
  stopBenchWorker,
  stopDevServer,
  tmp,
  yardstickMs,
} from './context.mjs';

/** Mean wall time of `runAction` on `bash -c true`, called directly (outside any worker). */
async function actionSpawns(n) {
  const { runAction } = createActivities();
  const input = {
    instanceId: 'bench',
    state: 'spawn',
    step: 1,
    kind: 'shell',
    shell: { script: 'true', vars: {}, env: {} },
    cwd: project,
    timeout_s: 30,
  };
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) await runAction(input);
  return (performance.now() - t0) / n;
}

async function standardBenchmarks() {
  say(
    `ll-loop benchmarks (dedicated server ${endpoint.address}, ${cpus().length} cores, load ${report.machine.loadavg_at_start.join(' ')}, yardstick ${report.machine.yardstick_ms_at_start} ms)`,
  );
  if (PARTS.has('cli')) {
    const c = cliLatency({ bin: BIN, project });
    report.cli = c;
    const shown = Object.entries(c.commands).map(
      ([name, r]) => `${name} ${r.median_ms} ms (CPU ${r.cpu_median_ms} ms)${r.within_goal ? '' : ' over'}`,
    );
    say(`  commands without Temporal (median of ${c.runs}, goal ${c.goal_ms} ms): ${shown.join(', ')}`);
  }
  if (PARTS.has('transitions')) {
    report.transitions = {};
    // Bursts first and the remote lane last: each remote activity leaves the server a heartbeat
    // timeout timer that fires 30 s after the activity started (a no-op, the activity long done);
    // while the dev server's one shard reads those, a new timer (a burst's 1 ms flush) waited
    // ~180 ms instead of ~8 ms, and bursts measured right after the remote lane took a third longer.
    for (const [key, label, quick, rules] of [
      ['bursts', "default_timeout: 10, ll-loop run's rules → quick bursts", true, true],
      ['local', 'default_timeout: 10 → local activities, one per action (no run rules)', true, false],
      ...(process.env.BENCH_SKIP_REMOTE ? [] : [['remote', 'default timeout (3600 s) → activities', false, false]]),
    ]) {
      const started = Date.now();
      const r = await transitions(quick, rules);
      // The parts after it measure on a server that has read the remote lane's timers.
      if (!quick) await sleep(Math.max(0, started + (REMOTE_HEARTBEAT_S + 5) * 1000 - Date.now()));
      report.transitions[key] = r;
      say(
        `  transitions, ${label}: median ${r.median_ms.toFixed(2)} ms/transition (mean ${r.mean_ms.toFixed(2)} ms over ${r.steps} steps, ${r.terminated_by}; worker CPU ${r.worker_cpu_ms} ms/transition)`,
      );
    }
  }
  if (PARTS.has('first-action')) {
    const f = await firstAction();
    report.first_action = f;
    say(
      `  ll-loop run → first action (worker up), quick action: median ${f.local.median_ms} ms, max ${f.local.max_ms} ms (runs: ${f.local.runs_ms.join(', ')} ms)`,
    );
    say(
      `  ll-loop run → first action (worker up), default action: median ${f.remote.median_ms} ms, max ${f.remote.max_ms} ms (runs: ${f.remote.runs_ms.join(', ')} ms)`,
    );
    say(
      `  the same, quick action, after a 1 s pause: its action spawner gone median ${f.spawner_down.median_ms} ms (runs: ${f.spawner_down.runs_ms.join(', ')} ms), up ${f.paused_spawner_up.median_ms} ms (runs: ${f.paused_spawner_up.runs_ms.join(', ')} ms)`,
    );
    for (const [key, what] of [
      ['local', 'quick'],
      ['remote', 'default'],
    ])
      say(
        `  the same with ${f.loaded.busy_processes} busy processes (every core), ${what} action: median ${f.loaded[key].median_ms} ms (runs: ${f.loaded[key].runs_ms.join(', ')} ms)`,
      );
    const b = f.breakdown_median_ms;
    say(
      `    where it goes (median of ${f.breakdown_runs.length} probed runs, ms): node ${b.node_startup_ms}, node up → first connection ${b.before_connect_ms}, ` +
        `connecting → workflow started ${b.connect_to_start_ms} (${b.connections_before_start} connections; the CLI compiled ${b.cli_compiled_ms} ms after node was up), ` +
        `→ worker has the task ${b.dispatch_ms}, → action ${b.worker_ms}; @temporalio/worker loaded before the start: ${b.worker_sdk_before_start ? 'yes' : 'no'}`,
    );
  }
  if (PARTS.has('mcp')) {
    const m = await mcpStart();
    report.mcp = m;
    say(
      `  MCP start_run → first action (ll-loop mcp over stdio, worker up), quick action: median ${m.median_ms} ms, max ${m.max_ms} ms (runs: ${m.runs_ms.join(', ')} ms; the call returned after ${m.returned_median_ms} ms median; goal ${m.goal_ms} ms)`,
    );
  }
  if (PARTS.has('follow')) {
    const f = await followCost();
    report.follow = f;
    say(
      `  one-state loop, ll-loop run → prompt (worker up): median ${f.one_state_to_prompt.median_ms} ms (runs: ${f.one_state_to_prompt.runs_ms.join(', ')} ms)`,
    );
    say(
      `  ${f.states} quick states, foreground / background run time: ${f.foreground_over_background_run_pairs} (median of ${f.pairs} pairs; of the medians ${f.foreground_over_background_run}); follower CPU / worker CPU (its spawner's included): ${f.follower_cpu_over_worker_cpu} (following alone: ${f.following_cpu_over_worker_cpu}; ${f.following_cpu_over_worker_process_cpu} of the worker's process alone); worker RSS 5 s after: ${f.worker_rss_after_runs_mb} MB, idle (30 s after): ${f.worker_idle_rss_mb} MB`,
    );
  }
  if (PARTS.has('background')) {
    const b = await backgroundStarts();
    report.background = b;
    say(
      `  ${b.runs} \`ll-loop run --background\`, one every ${b.every_ms} ms (worker up): command p50 ${b.command.p50_ms} ms, p95 ${b.command.p95_ms} ms, max ${b.command.max_ms} ms (goal ${b.goal_ms} ms); ` +
        `every run started ${b.all_started_s} s after the first command (the last command exited at ${b.last_command_exit_s} s); ` +
        `\`node -e 0\` the same way: p50 ${b.node_alone.p50_ms} ms, max ${b.node_alone.max_ms} ms (CPU ${b.node_alone.cpu_ms} ms each); CPU: commands ${b.cpu_s.commands} s (${b.cpu_s.per_command_ms} ms each), worker ${b.cpu_s.worker} s`,
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
    const shown = Object.entries(l.providers).map(
      ([name, r]) =>
        `${name} median ${r.median_ms} ms, p95 ${r.p95_ms} ms (first ${r.first_ms} ms)${r.within_goal ? '' : ' over'}`,
    );
    say(
      `  LLM evaluation activity alone, fake API answering at once (${l.calls} calls, goal ${l.goal_ms} ms): ${shown.join('; ')}`,
    );
    const e = await llmEndToEnd();
    report.llm_end_to_end = e;
    say(
      `  LLM evaluation end to end (anthropic provider, fake API answering at once, ${e.passes} passes, goal ${e.goal_ms} ms): adds ${e.added_median_ms} ms per evaluation ` +
        `(difference of the medians; of the p95s ${e.added_p95_ms} ms) (per pass: llm_structured ${e.llm_structured.median_ms}/${e.llm_structured.p95_ms} ms, exit_code ${e.exit_code.median_ms}/${e.exit_code.p95_ms} ms median/p95)${e.within_goal ? '' : ' over'}`,
    );
  }
  if (PARTS.has('concurrent')) {
    const c = await concurrentLoops(LOOPS);
    report.concurrent = c;
    say(
      `  ${c.loops} concurrent ${c.states_per_loop}-state loops: ${c.completed}/${c.loops} ended in their terminal state; ${c.transitions} transitions in ${c.wall_s} s = ` +
        `${c.transitions_per_s} transitions/s; worker peak RSS ${c.worker_peak_rss_mb} MB (VmHWM), its action spawner's ${c.spawner_peak_rss_mb} MB; CPU s: worker ${c.cpu_s.worker}, spawner ${c.cpu_s.spawner}, actions ${c.cpu_s.actions}, server ${c.cpu_s.server}, ` +
        `machine ${c.machine_busy_pct}% busy; server peak RSS ${c.server_peak_rss_mb} MB; per loop (mean of ${c.histories_sampled}): ${c.per_loop_mean.workflow_tasks} workflow tasks, ` +
        `${c.per_loop_mean.workflow_task_timeouts} timed out`,
    );
    if (c.not_completed > 0) process.exitCode = 1;
  }
  if (PARTS.has('ui')) {
    const u = await uiBench();
    report.ui = u;
    say(
      `  ll-loop ui, transition → lit state in Chromium: median ${u.lit_median_ms} ms, p95 ${u.lit_p95_ms} ms over ${u.transitions_observed} transitions (goal ${u.lit_goal_ms} ms)`,
    );
    say(
      `  ll-loop ui, runs page first load with ${u.runs_listed} runs: median ${u.first_load_median_ms} ms (${u.first_load_ms.join(', ')} ms; goal ${u.first_load_goal_ms} ms)`,
    );
    for (const b of u.first_load_breakdown)
      say(
        `    page: html ${b.html_ms} ms, script ${b.script_ms} ms, first list ${b.first_list_ms} ms (${b.first_list_runs} runs), all listed ${b.full_list_ms} ms`,
      );
    say(
      `    server list readings (ms): before the pages ${u.server_list_reads_ms.before_pages.join(', ')}; latest ${u.server_list_reads_ms.latest.join(', ')}`,
    );
  }
  if (PARTS.has('parallel')) {
    // Items of `true` against quick transitions measured in this run (issue 55's goal: at most 2x).
    const perTransition = report.transitions?.bursts?.mean_ms;
    const vsTransition = (r) =>
      perTransition === undefined || r.ideal_s !== 0
        ? ''
        : ` (${(r.ms_per_item / perTransition).toFixed(1)}x a quick transition's ${perTransition.toFixed(2)} ms)`;
    report.parallel = await parallelBench();
    for (const r of report.parallel)
      say(
        `  parallel: ${r.items} items of \`${r.action}\` (${r.actions}, as ${r.items_as}), max_workers ${r.max_workers}, load ${r.load.join(' ')}: ${r.succeeded}/${r.items} succeeded; fanout_start → fanout_join ${r.wall_s} s ` +
          `(ideal ${r.ideal_s} s), overhead ${r.overhead_per_item_s} s/item, ${r.ms_per_item} ms/item${vsTransition(r)}; worker peak RSS ${r.worker_peak_rss_mb} MB (VmHWM, this process)`,
      );
  }
  if (PARTS.has('tracing')) {
    const t = await tracingBench();
    report.tracing = t;
    for (const lane of ['remote', 'bursts'].filter((l) => t[l]))
      say(
        `  tracing (OpenTelemetry into Jaeger), ${t.transitions}-transition loop, ${lane}: off ${t[lane].off_ms} ms, on ${t[lane].on_ms} ms per transition (medians of ${t.rounds} runs each, by turns): ${t[lane].overhead_pct}% (goal ≤ 5%); the worker's CPU ${t[lane].cpu_off_ms} → ${t[lane].cpu_on_ms} ms (${t[lane].cpu_overhead_pct}%)`,
      );
    say(`    ${t.spans} spans in ${t.traces} traces reached Jaeger (${t.spans_per_transition} per transition)`);
  }
  if (PARTS.has('fanout10k')) {
    report.fanout10k = await fanout10kBench();
    for (const r of report.fanout10k)
      say(
        `  fanout10k: ${r.items} items of \`${r.action}\` as ${r.items_as}, max_workers ${r.max_workers}, load ${r.load.join(' ')}: ${r.succeeded}/${r.items} succeeded; ` +
          `fanout_start → fanout_join ${r.wall_s} s (${r.ms_per_item} ms/item); worker peak RSS ${r.worker_peak_rss_mb} MB (VmHWM, this process); ` +
          `${r.runs} run(s), largest history ${r.largest_history_events} events, ${r.largest_history_mb} MB`,
      );
  }
  if (PARTS.has('cluster')) {
    // Prints its own lines, the dev server's figures and the cluster's in turn.
    report.cluster = await clusterBench();
  }
  if (PARTS.has('human')) {
    const h = await humanBench();
    report.human = h;
    if (h.answer)
      say(
        `  ll-loop answer returned → next action starts (median of ${h.answer.answers}, goal ${h.answer.goal_ms} ms): median ${h.answer.median_ms} ms, max ${h.answer.max_ms} ms ` +
          `(runs: ${h.answer.runs_ms.join(', ')} ms); the answer command itself: median ${h.answer.answer_command_median_ms} ms${h.answer.within_goal ? '' : ' over'}`,
      );
    say(
      `  ll-loop inbox with ${h.inbox.waiting_runs} waiting runs (listed ${h.inbox.listed}, goal ${h.inbox.goal_ms} ms): median ${h.inbox.median_ms} ms (${h.inbox.runs_ms.join(', ')} ms); with none waiting ${h.inbox.empty_median_ms} ms${h.inbox.within_goal ? '' : ' over'}`,
    );
  }
  if (PARTS.has('outcomes')) {
    const o = await outcomesBench();
    report.outcomes = o;
    say(
      `  outcomes, ${o.cases} cases (${o.projects.join(', ')} × their loops × 5 agents): fixer brought ${o.fixer_green_pct}% to green; ` +
        `false greens: ${o.false_greens} of the cheater's and no-op's (${o.false_greens_any_agent} of any agent's); ` +
        `ll-loop's own time per pass mean ${o.own_per_pass_ms.mean} ms (of the cases: median ${o.own_per_pass_ms.median} ms, p95 ${o.own_per_pass_ms.p95} ms, max ${o.own_per_pass_ms.max} ms; ` +
        `per pass in workflow tasks ${o.own_split_per_pass_ms.workflow_tasks} ms, in activities around their processes ${o.own_split_per_pass_ms.activities} ms, rest ${o.own_split_per_pass_ms.rest} ms; ` +
        `by hop: tasks' dispatch ${o.own_split_per_pass_ms.hops.task_dispatch} and run ${o.own_split_per_pass_ms.hops.task_run} ms, activities' dispatch ${o.own_split_per_pass_ms.hops.activity_dispatch} and work ${o.own_split_per_pass_ms.hops.activity_work} ms)`,
    );
    for (const [agent, a] of Object.entries(o.per_agent))
      say(
        `    ${agent}: ${a.green_pct}% green over ${a.cases} cases, ${a.false_greens} false greens, mean ${a.mean_agent_calls} agent calls and ${a.mean_iterations} passes; ends: ` +
          Object.entries(a.ends)
            .map(([s, k]) => `${s} ${k}`)
            .join(', '),
      );
  }
  if (PARKED > 0) {
    const p = await parkedLoops(PARKED);
    report.parked = p;
    say(
      `  ${p.loops} runs parked on a timer (parked after ${p.parked_after_s} s): worker RSS ${p.worker_rss_before_mb} MB → ${p.worker_rss_parked_mb} MB, ` +
        `peak ${p.worker_peak_rss_mb} MB (VmHWM, the worker's whole life)`,
    );
  }
  if (PARTS.has('cold')) {
    // Last: it stops the bench's server (the parts above hold connections to it).
    const c = await coldStarts();
    report.cold = c;
    say(
      `  one-state loop, ll-loop run → prompt, the checkout's worker down (server up): median ${c.worker_down.median_ms} ms (runs: ${c.worker_down.runs_ms.join(', ')} ms)`,
    );
    say(
      `  the same with nothing up (the embedded server stopped too): median ${c.nothing_up.median_ms} ms (runs: ${c.nothing_up.runs_ms.join(', ')} ms)`,
    );
  }
}

try {
  if (process.env.BENCH_LONG) {
    const count = Number(process.env.BENCH_LONG_TRANSITIONS ?? 20_000);
    say(`ll-loop long-loop benchmark (server ${endpoint.address}, ${count} transitions, local activities)`);
    const r = await longLoop(count);
    report.long_loop = {
      transitions: r.steps,
      terminated_by: r.terminated_by,
      total_s: round(r.total / 1000, 1),
      ms_per_transition: round(r.total / r.steps, 2),
      temporal_runs: r.runs,
    };
    say(
      `  ${r.steps} transitions, ${r.terminated_by}: ${(r.total / 1000).toFixed(1)} s (${(r.total / r.steps).toFixed(2)} ms/transition); ` +
        `${r.runs} Temporal runs (${r.runs - 1} continue-as-new); captured a.exit_code ${r.captured.a?.exit_code}`,
    );
    if (r.steps !== count) process.exitCode = 1;
  } else await standardBenchmarks();
  report.machine.loadavg_at_end = loadavg().map((l) => Number(l.toFixed(2)));
  report.machine.yardstick_ms_at_end = yardstickMs();
  report.goals = judgeGoals(report);
  if (report.goals.length) {
    say(
      `goals (machine: yardstick ${report.machine.yardstick_ms_at_start}/${report.machine.yardstick_ms_at_end} ms at start/end, load ${report.machine.loadavg_at_end.join(' ')} at end):`,
    );
    for (const line of goalLines(report.goals)) say(line);
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  // Only what this bench started: its checkout worker (by the pid it recorded) and its server.
  await stopBenchWorker();
  await stopDevServer(serverOptions.dataDir);
  if (process.env.BENCH_KEEP) note(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
  setTimeout(() => process.exit(), 100).unref();
}

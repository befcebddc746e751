// The goals the issues set for the figures this bench measures, judged on the report: one row per
// goal with the figure, its limit and whether it is met. A goal whose part did not run is left out;
// one measured in a setting other than the goal's (fewer loops with --quick or --loops) is kept
// with `applies: false`, so a quick run never reads as the goal met or missed.

/** [id, what, part of the report → figure, limit, 'max' | 'min', unit, applies?(report)] */
const GOALS = [
  ['cli', 'commands without Temporal (slowest median)', (r) => slowestCli(r.cli), 300, 'max', 'ms'],
  [
    'first_action_quick',
    '`ll-loop run` → first action, quick action, worker up',
    (r) => r.first_action?.local?.median_ms,
    400,
    'max',
    'ms',
  ],
  [
    'first_action_default',
    '`ll-loop run` → first action, default action, worker up',
    (r) => r.first_action?.remote?.median_ms,
    400,
    'max',
    'ms',
  ],
  [
    'first_action_quick_loaded',
    '`ll-loop run` → first action, quick action, worker up, every core busy',
    (r) => r.first_action?.loaded?.local?.median_ms,
    600,
    'max',
    'ms',
  ],
  [
    'first_action_default_loaded',
    '`ll-loop run` → first action, default action, worker up, every core busy',
    (r) => r.first_action?.loaded?.remote?.median_ms,
    600,
    'max',
    'ms',
  ],
  [
    'mcp_first_action',
    'MCP `start_run` → first action, quick action, worker up',
    (r) => r.mcp?.median_ms,
    300,
    'max',
    'ms',
  ],
  [
    'background_start',
    '100 `ll-loop run --background`, one per 0.1 s: slowest command',
    (r) => r.background?.command?.max_ms,
    1000,
    'max',
    'ms',
    (r) => r.background?.runs === 100,
  ],
  [
    'tracing_overhead',
    'tracing on (OpenTelemetry into Jaeger): time added to a 1,000-transition loop, default actions',
    (r) => r.tracing?.remote?.overhead_pct,
    5,
    'max',
    '%',
    (r) => r.tracing?.transitions === 1000,
  ],
  [
    'tracing_overhead_bursts',
    'tracing on (OpenTelemetry into Jaeger): time added to a 1,000-transition loop, quick actions in bursts',
    (r) => r.tracing?.bursts?.overhead_pct,
    5,
    'max',
    '%',
    (r) => r.tracing?.transitions === 1000,
  ],
  ['quick_transition', 'quick transition in bursts (mean)', (r) => r.transitions?.bursts?.mean_ms, 5, 'max', 'ms'],
  [
    'quick_history',
    'history events per quick transition',
    (r) => r.transitions?.bursts?.history_events_per_transition,
    1,
    'max',
    'events',
  ],
  [
    'one_state_prompt',
    'one-state loop, `ll-loop run` → prompt, worker up',
    (r) => r.follow?.one_state_to_prompt?.median_ms,
    600,
    'max',
    'ms',
  ],
  [
    'follow_wall',
    'run time followed / in the background (median of the pairs)',
    (r) => r.follow?.foreground_over_background_run_pairs ?? r.follow?.foreground_over_background_run,
    1.05,
    'max',
    'ratio',
    (r) => r.follow?.pairs >= 15,
  ],
  [
    'follow_cpu',
    "following's CPU / the worker's (its action spawner's included)",
    (r) => r.follow?.following_cpu_over_worker_cpu,
    0.1,
    'max',
    'ratio',
    (r) => r.follow?.pairs >= 15,
  ],
  ['idle_worker_rss', 'idle checkout worker RSS', (r) => r.follow?.worker_idle_rss_mb, 120, 'max', 'MB'],
  [
    'concurrent_rate',
    '1,000 concurrent 10-state quick loops: transitions/s',
    (r) => r.concurrent?.transitions_per_s,
    150,
    'min',
    '/s',
    (r) => r.concurrent?.loops === 1000,
  ],
  [
    'concurrent_rss',
    '1,000 concurrent loops: worker peak RSS, its action spawner’s included',
    (r) => r.concurrent?.worker_and_spawner_peak_rss_mb ?? r.concurrent?.worker_peak_rss_mb,
    1024,
    'max',
    'MB',
    (r) => r.concurrent?.loops === 1000,
  ],
  [
    'concurrent_ended',
    '1,000 concurrent loops: runs that did not end in their terminal',
    (r) => r.concurrent?.not_completed,
    0,
    'max',
    'runs',
  ],
  ['llm_added', 'what an LLM evaluation adds end to end', (r) => r.llm_end_to_end?.added_median_ms, 50, 'max', 'ms'],
  [
    'outcomes_fixer',
    'outcomes: projects the fixer brought to green',
    (r) => r.outcomes?.fixer_green_pct,
    100,
    'min',
    '%',
  ],
  [
    'outcomes_false_greens',
    'outcomes: false greens with the cheater and the no-op',
    (r) => r.outcomes?.false_greens,
    0,
    'max',
    'runs',
  ],
  [
    'outcomes_own_time',
    "outcomes: ll-loop's own time per pass beyond the agent's and the checks' (mean)",
    (r) => r.outcomes?.own_per_pass_ms?.mean,
    50,
    'max',
    'ms',
  ],
];

function slowestCli(cli) {
  if (!cli) return undefined;
  return Math.max(...Object.values(cli.commands).map((c) => c.median_ms));
}

/** The goals' rows for a report. */
export function judgeGoals(report) {
  const rows = [];
  for (const [id, what, figure, limit, kind, unit, applies] of GOALS) {
    const value = figure(report);
    if (value === undefined || Number.isNaN(value)) continue;
    // A ratio below zero (a CPU difference gone negative) is a broken measurement, never a goal met.
    const met = kind === 'max' ? value <= limit && !(unit === 'ratio' && value < 0) : value >= limit;
    rows.push({ id, what, value, limit, kind, unit, met, applies: applies ? applies(report) : true });
  }
  return rows;
}

/** One line per goal for the human report. */
export function goalLines(rows) {
  return rows.map((g) => {
    const verdict = !g.applies ? 'not the goal’s setting' : g.met ? 'met' : 'NOT MET';
    return `  ${g.what}: ${g.value} ${g.unit} (${g.kind === 'max' ? '≤' : '≥'} ${g.limit}): ${verdict}`;
  });
}

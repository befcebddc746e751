#!/usr/bin/env node
// Writes the performance table of docs/architecture.md from a bench report, so the figures there
// are the bench's own and current:
//   npm run -s bench -- --json > /tmp/bench.json
//   node tools/bench-table.mjs /tmp/bench.json   (rewrites the table between its markers)
// The table is every goal the bench judged (bench/goals.mjs) and the figures without a goal, with
// the machine it ran on (cores, load, the yardstick: figures of different days differ by it).
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
const DOC = join(ROOT, 'docs', 'architecture.md');
export const START = '<!-- bench-table:start -->';
export const END = '<!-- bench-table:end -->';

const fmt = (v, unit = '') => (v === undefined || v === null || Number.isNaN(v) ? undefined : `${v}${unit}`);

/** Rows [measure, value] of figures the bench reports without a goal (those it did not measure are left out). */
function otherFigures(r) {
  const t = r.transitions ?? {};
  const f = r.first_action ?? {};
  const rows = [
    [
      'transition, one local activity per action (median; worker CPU per transition)',
      t.local && `${t.local.median_ms.toFixed(2)} ms; ${t.local.worker_cpu_ms} ms`,
    ],
    [
      'transition, remote activities (median; worker CPU per transition)',
      t.remote && `${t.remote.median_ms.toFixed(2)} ms; ${t.remote.worker_cpu_ms} ms`,
    ],
    ['quick bursts: worker CPU per transition', fmt(t.bursts?.worker_cpu_ms, ' ms')],
    [
      '`ll-loop run` → first action after a 1 s pause, spawner gone / up (median)',
      f.spawner_down && `${f.spawner_down.median_ms} / ${f.paused_spawner_up?.median_ms} ms`,
    ],
    ['checkout worker RSS 5 s after its runs', fmt(r.follow?.worker_rss_after_runs_mb, ' MB')],
    [
      `${r.background?.runs} \`run --background\`, one per 0.1 s: command p50 / p95; \`node -e 0\` beside them p50`,
      r.background &&
        `${r.background.command.p50_ms} / ${r.background.command.p95_ms} ms; ${r.background.node_alone?.p50_ms} ms`,
    ],
    ['`runAction(bash -c true)` without Temporal (mean)', fmt(r.run_action_ms, ' ms')],
    [
      'tracing on, 1,000 transitions: bursts (time; worker CPU), remote (worker CPU)',
      r.tracing &&
        `${r.tracing.bursts.overhead_pct}%; ${r.tracing.bursts.cpu_overhead_pct}%, ${r.tracing.remote.cpu_overhead_pct}%`,
    ],
    [
      `${r.concurrent?.loops} concurrent loops: CPU s worker / spawner / actions / server; machine busy`,
      r.concurrent?.cpu_s &&
        `${r.concurrent.cpu_s.worker} / ${r.concurrent.cpu_s.spawner} / ${r.concurrent.cpu_s.actions} / ${r.concurrent.cpu_s.server}; ${r.concurrent.machine_busy_pct} %`,
    ],
    [
      'one-state loop → prompt, worker down / nothing up (median)',
      r.cold && `${r.cold.worker_down.median_ms} / ${r.cold.nothing_up.median_ms} ms`,
    ],
  ];
  return rows.filter(([, v]) => v !== undefined);
}

/** The Markdown between the markers for a bench report. */
export function benchTable(report, { when, commit } = {}) {
  const m = report.machine ?? {};
  const goals = report.goals ?? [];
  const met = goals.filter((g) => g.applies && g.met).length;
  const judged = goals.filter((g) => g.applies).length;
  const lines = [
    `Measured ${when ?? 'at an unknown time'}${commit ? ` on ${commit}` : ''}: ${m.cpus} cores, load ${m.loadavg_at_start?.join(' ')} at the start and ${m.loadavg_at_end?.join(' ')} at the end, yardstick ${m.yardstick_ms_at_start} / ${m.yardstick_ms_at_end} ms (0.5 s on a quick day). Goals met: ${met} of ${judged}.`,
    '',
    '| Measure | Value | Goal |',
    '|---|---|---|',
    ...goals.map((g) => {
      const verdict = !g.applies ? 'not the goal’s setting' : g.met ? 'met' : '**not met**';
      return `| ${g.what} | ${g.value} ${g.unit} | ${g.kind === 'max' ? '≤' : '≥'} ${g.limit} ${g.unit}: ${verdict} |`;
    }),
    ...otherFigures(report).map(([what, value]) => `| ${what} | ${value} | |`),
  ];
  return lines.join('\n');
}

/** `doc` with the text between the markers replaced by `table`. */
export function withTable(doc, table) {
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/architecture.md: no ${START} … ${END} pair`);
  return `${doc.slice(0, a + START.length)}\n${table}\n${doc.slice(b)}`;
}

function commitOf() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file || rest.length > 0) {
    process.stderr.write('usage: node tools/bench-table.mjs REPORT.json\n');
    process.exit(2);
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const when = `${statSync(file).mtime.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const doc = readFileSync(DOC, 'utf8');
  writeFileSync(DOC, withTable(doc, benchTable(report, { when, commit: commitOf() })));
  process.stdout.write(`wrote the bench table of ${DOC}\n`);
}

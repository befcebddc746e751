/**
 * `ll-loop report <loop> [--since D] [--limit N] [--json]`: how a loop's runs of this checkout
 * went, per loop version — outcomes, what a success takes, cost, per state its visits, errors and
 * time, where failed runs ended and runs stalled, and suggestions (runs/follow/).
 */
import { formatDuration } from '../../fsm/format.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { table } from '../../reporters/table.js';
import { parseDuration } from '../../runs/schedules/durations.js';
import type { ReportFigures } from '../../runs/follow/report-figures.js';
import type { LoopReport, VersionComparison } from '../../runs/follow/loop-report.js';
import { bool, str, type CommandSpec } from '../command-table.js';

/** How many of the newest runs are read without `--limit`. */
const DEFAULT_REPORT_LIMIT = 50;

const USAGE = 'll-loop report <loop> [--since 7d|2026-11-01] [--limit N] [--json]';

/** `--since`: a duration back from `now` (`7d`, `12h`) or a date (`2026-11-01`, an ISO time). */
function sinceDate(text: string, now: Date): Date {
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const at = new Date(text.trim());
    if (Number.isNaN(at.getTime()))
      throw new UsageError(`--since "${text}" is not a date`, 'write a date as 2026-11-01 or 2026-11-01T09:00:00Z');
    return at;
  }
  return new Date(now.getTime() - parseDuration(text, '--since'));
}

function limitOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_REPORT_LIMIT;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--limit "${text}" is not a whole number of runs`, 'write --limit 20 (1 or more)');
  return n;
}

const percent = (r: number | null): string => (r === null ? '-' : `${Math.round(r * 100)}%`);
const num = (n: number | null): string => (n === null ? '-' : String(n));
const ms = (n: number | null): string => (n === null ? '-' : formatDuration(n));
const usd = (n: number | null): string => (n === null ? '-' : `$${n.toFixed(4)}`);
const counts = (c: Record<string, number>): string =>
  Object.entries(c)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || '-';

function figureLines(f: ReportFigures, indent: string): string[] {
  const lines = [
    `runs ${f.runs} (running ${f.running}), succeeded ${f.succeeded}, failed ${f.failed}, success rate ${percent(f.success_rate)}`,
    `outcomes: ${counts(f.by_outcome)}`,
    `to success: median ${num(f.median_iterations_to_success)} iteration${f.median_iterations_to_success === 1 ? '' : 's'}, ${ms(f.median_duration_ms_to_success)}`,
    `cost: ${usd(f.cost_usd)} in all, ${usd(f.cost_per_run)} a run, ${usd(f.cost_per_success)} a success`,
    `failed runs ended in: ${counts(f.failed_ended_in)}`,
    `stalled in: ${counts(f.stalled_in)}`,
  ];
  const rows = f.states.map((s) => [
    s.state,
    String(s.visits),
    String(s.errors),
    percent(s.error_rate),
    ms(s.mean_duration_ms),
  ]);
  const states = rows.length ? table([['STATE', 'VISITS', 'ERRORS', 'ERROR RATE', 'MEAN TIME'], ...rows]) : '';
  return [...lines, ...states.split('\n').filter((l) => l !== '')].map((l) => `${indent}${l}`);
}

function comparisonLine(c: VersionComparison): string {
  const pair = (f: (n: number | null) => string, [a, b]: [number | null, number | null]) => `${f(a)} → ${f(b)}`;
  return `${c.from} → ${c.to}: success rate ${pair(percent, c.success_rate)}, median iterations ${pair(num, c.median_iterations_to_success)}, median time ${pair(ms, c.median_duration_ms_to_success)}, cost a run ${pair(usd, c.cost_per_run)}`;
}

/** The report as text. */
function reportText(r: LoopReport): string {
  const window = r.since ? ` since ${r.since}` : '';
  if (r.runs_found === 0)
    return `no runs of ${r.loop} in this project${window}: start one with ll-loop run ${r.loop}\n`;
  const read =
    r.runs_read < r.runs_found
      ? `the newest ${r.runs_read} of ${r.runs_found} runs${window} (--limit ${r.limit})`
      : `${r.runs_read} run${r.runs_read === 1 ? '' : 's'}${window}`;
  const out = [`report of ${r.loop}: ${read}, ${r.versions.length} loop version(s)`, 'all versions:'];
  out.push(...figureLines(r.all, '  '));
  for (const v of r.versions) {
    out.push('', `version ${v.version} (runs started ${v.first_started} to ${v.last_started}):`);
    out.push(...figureLines(v.figures, '  '));
    for (const s of v.suggestions) out.push(`  suggest: ${s.message}`);
  }
  if (r.comparison) out.push('', `compared: ${comparisonLine(r.comparison)}`);
  return `${out.join('\n')}\n`;
}

/** `ll-loop report`. Returns the exit code. */
export async function reportCommand(opts: {
  cwd: string;
  loop: string;
  since?: string;
  limit?: string;
  json: boolean;
  out: (text: string) => void;
}): Promise<number> {
  const since = opts.since === undefined ? undefined : sinceDate(opts.since, new Date());
  const limit = limitOf(opts.limit);
  const [{ withSession }, { reportRuns }, { loopReport }] = await Promise.all([
    import('../../temporal/session.js'),
    import('../../runs/follow/report-runs.js'),
    import('../../runs/follow/loop-report.js'),
  ]);
  const { runs, found } = await withSession(opts.cwd, (s) =>
    reportRuns(s.client, { cwd: opts.cwd, loop: opts.loop, limit, ...(since ? { since } : {}) }),
  );
  const report = loopReport(opts.loop, runs, {
    runs_found: found,
    limit,
    ...(since ? { since: since.toISOString() } : {}),
  });
  opts.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : reportText(report));
  return EXIT.ok;
}

/** `ll-loop report` in the command table. */
export const reportSpec: CommandSpec = {
  usage: 'report <loop> [--since D] [--limit N] [--json]   how its runs went, per loop version, with suggestions',
  flags: { since: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
  run(ctx) {
    const [loop, ...rest] = ctx.positionals;
    if (loop === undefined) throw new UsageError('report needs a loop name', USAGE);
    if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`, USAGE);
    const [since, limit] = [str(ctx, 'since'), str(ctx, 'limit')];
    return reportCommand({
      cwd: ctx.cwd,
      loop,
      json: bool(ctx, 'json'),
      out: ctx.out,
      ...(since === undefined ? {} : { since }),
      ...(limit === undefined ? {} : { limit }),
    });
  },
};

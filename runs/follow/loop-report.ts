/**
 * `ll-loop report`'s whole report from a loop's runs (pure): the figures of every run read, the
 * same per loop version (newest version first) with its suggestions, and the newest version
 * compared with the one before it.
 */
import { reportFigures, type ReportFigures, type ReportRun } from './report-figures.js';
import { suggestionsFor, type Suggestion } from './report-suggestions.js';

interface VersionReport {
  version: string;
  first_started: string;
  last_started: string;
  figures: ReportFigures;
  suggestions: Suggestion[];
}

/** The newest version against the one before it: each figure before and after. */
export interface VersionComparison {
  from: string;
  to: string;
  success_rate: [number | null, number | null];
  median_iterations_to_success: [number | null, number | null];
  median_duration_ms_to_success: [number | null, number | null];
  cost_per_run: [number | null, number | null];
}

export interface LoopReport {
  loop: string;
  /** The start of the window (`--since`), if one was given. */
  since?: string;
  /** Runs in the window, and how many of the newest were read (`--limit`). */
  runs_found: number;
  runs_read: number;
  limit: number;
  all: ReportFigures;
  suggestions: Suggestion[];
  versions: VersionReport[];
  comparison?: VersionComparison;
}

/** The report of `runs` (newest first or in any order). */
export function loopReport(
  loop: string,
  runs: readonly ReportRun[],
  window: { since?: string; runs_found: number; limit: number },
): LoopReport {
  const newestFirst = [...runs].sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at));
  const groups = new Map<string, ReportRun[]>();
  for (const run of newestFirst) groups.set(run.loop_version, [...(groups.get(run.loop_version) ?? []), run]);
  const versions = [...groups].map(([version, group]): VersionReport => {
    const figures = reportFigures(group);
    return {
      version,
      first_started: group[group.length - 1]!.started_at,
      last_started: group[0]!.started_at,
      figures,
      suggestions: suggestionsFor(figures),
    };
  });
  const all = reportFigures(newestFirst);
  const [to, from] = versions;
  return {
    loop,
    ...(window.since === undefined ? {} : { since: window.since }),
    runs_found: window.runs_found,
    runs_read: runs.length,
    limit: window.limit,
    all,
    suggestions: suggestionsFor(all),
    versions,
    ...(to && from ? { comparison: compare(from, to) } : {}),
  };
}

function compare(from: VersionReport, to: VersionReport): VersionComparison {
  const pair = <K extends keyof ReportFigures>(key: K) =>
    [from.figures[key], to.figures[key]] as [number | null, number | null];
  return {
    from: from.version,
    to: to.version,
    success_rate: pair('success_rate'),
    median_iterations_to_success: pair('median_iterations_to_success'),
    median_duration_ms_to_success: pair('median_duration_ms_to_success'),
    cost_per_run: pair('cost_per_run'),
  };
}

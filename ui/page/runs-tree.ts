/**
 * The runs list's rows: sub-runs (a fan-out's items, sub-loops) under their parent, folded until
 * the parent is opened, so two 20-item fan-outs are two rows, not forty, and waiting or failed
 * runs stay in view. A run whose parent is not listed (filtered out, or beyond the list's limit)
 * is a row of its own. Pure: unit-tested.
 */
import { outcomeLabel } from '../../reporters/outcome-words.js';
import type { RunRow } from '../server/wire.js';

export interface ListedRow {
  run: RunRow;
  /** 0 for a run of its own; 1 for a sub-run of an opened parent, 2 for one of its sub-runs… */
  depth: number;
  /** How many sub-runs it has (all levels below it). */
  children: number;
  /** `12 succeeded · 3 running`: its sub-runs by outcome, most frequent first. */
  summary: string;
  open: boolean;
}

const byIndex = new Intl.Collator(undefined, { numeric: true });

/** The rows to draw, in order: each run, then (when it is in `opened`) its sub-runs, by id. */
export function listedRows(runs: RunRow[], opened: ReadonlySet<string>): ListedRow[] {
  const ids = new Set(runs.map((r) => r.id));
  const children = new Map<string, RunRow[]>();
  for (const r of runs)
    if (r.parent !== undefined && ids.has(r.parent)) children.set(r.parent, [...(children.get(r.parent) ?? []), r]);
  // By id, numbers as numbers: a fan-out's items (`<parent>.<state>.<step>.<index>`) in item order.
  for (const list of children.values()) list.sort((a, b) => byIndex.compare(a.id, b.id));
  const below = (id: string, seen = new Set<string>()): RunRow[] =>
    (children.get(id) ?? []).flatMap((c) => (seen.has(c.id) ? [] : (seen.add(c.id), [c, ...below(c.id, seen)])));
  const out: ListedRow[] = [];
  const visit = (run: RunRow, depth: number): void => {
    const all = below(run.id);
    const open = all.length > 0 && opened.has(run.id);
    out.push({ run, depth, children: all.length, summary: summaryOf(all), open });
    if (open) for (const c of children.get(run.id) ?? []) visit(c, depth + 1);
  };
  for (const r of runs) if (r.parent === undefined || !ids.has(r.parent)) visit(r, 0);
  return out;
}

function summaryOf(runs: RunRow[]): string {
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([outcome, n]) => `${n} ${outcomeLabel(outcome)}`)
    .join(' · ');
}

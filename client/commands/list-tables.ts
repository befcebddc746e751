/**
 * What the tables of `list`, `list --running`, `list --failed` and `list --builtin` share (list.ts,
 * list-failed.ts, list-builtin.ts): a loop's listing, runs under their parents, the PROJECT column.
 * A helper of the `list` command.
 */

/** One loop file as `list` shows it. */
export interface LoopListing {
  name: string;
  file: string;
  valid: boolean;
  description?: string;
  category?: string;
  labels: string[];
  /** Its audience: `public` (the default), `internal` or `example` (list-visibility.ts). */
  visibility?: string;
  /** The first error, for an invalid file. */
  error?: string;
}

/**
 * The runs in the order `list --running` shows them: each run's children (sub-loops, parallel
 * items) right under it, indented by their depth; a child whose parent is not listed stands alone.
 */
export function underParents<R extends { id: string; parent?: string }>(runs: R[]): Array<R & { depth: number }> {
  const ids = new Set(runs.map((r) => r.id));
  const children = new Map<string, R[]>();
  for (const r of runs)
    if (r.parent !== undefined && ids.has(r.parent)) children.set(r.parent, [...(children.get(r.parent) ?? []), r]);
  const out: Array<R & { depth: number }> = [];
  const visit = (r: R, depth: number): void => {
    out.push({ ...r, depth });
    for (const child of children.get(r.id) ?? []) visit(child, depth + 1);
  };
  for (const r of runs) if (r.parent === undefined || !ids.has(r.parent)) visit(r, 0);
  return out;
}

/**
 * The table with a PROJECT column (each run's directory) after LOOP with `--all-projects`, even
 * when every run listed is of one project: that project may not be this one; as it is otherwise.
 */
export function withProjects(
  header: string[],
  rows: string[][],
  runs: { cwd?: string }[],
  allProjects: boolean,
): string[][] {
  if (!allProjects) return [header, ...rows];
  const at = 2;
  return [
    [...header.slice(0, at), 'PROJECT', ...header.slice(at)],
    ...rows.map((row, i) => [...row.slice(0, at), runs[i]!.cwd ?? '-', ...row.slice(at)]),
  ];
}

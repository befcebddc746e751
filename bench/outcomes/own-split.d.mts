// Types of bench/outcomes/own-split.mjs for the test that imports it (tests/unit/outcome-own-split.test.ts).
export interface OwnSplit {
  workflow_tasks_ms: number;
  activities_ms: number;
  rest_ms: number;
  /** The same time by hop: task_dispatch + task_run = workflow_tasks_ms; activity_dispatch + activity_work = activities_ms. */
  hops_ms: { task_dispatch: number; task_run: number; activity_dispatch: number; activity_work: number };
}

export function ownSplit(
  history: ReadonlyArray<Record<string, unknown>>,
  own: number,
  events: ReadonlyArray<{ event: string; [field: string]: unknown }>,
): OwnSplit;

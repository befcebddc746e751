// Types of bench/outcomes/own-split.mjs for the test that imports it (tests/unit/outcome-own-split.test.ts).
export interface OwnSplit {
  workflow_tasks_ms: number;
  activities_ms: number;
  rest_ms: number;
}

export function ownSplit(
  history: ReadonlyArray<Record<string, unknown>>,
  own: number,
  events: ReadonlyArray<{ event: string; [field: string]: unknown }>,
): OwnSplit;

/** Types of tools/test-run-sweep.mjs, for the tests' setup (tests/support/processes.ts). */
export function processesOfTestRun(testRunId: string): number[];
export function sweepTestRun(testRunId: string): number;

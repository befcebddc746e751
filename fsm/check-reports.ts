/**
 * What the worker reports about a state's test files and its check, for the agent fields
 * `tamper_guard:` (fsm/tamper-guard.ts) and `prepatch_check:` (fsm/prepatch-check.ts). Plain
 * JSON: it crosses Temporal payloads in ActionResult (fsm/types.ts) and is stored in history,
 * so it names paths, never file contents.
 */

/** `prepatch_check:` words that run a check (fsm/prepatch-check.ts); `allow` runs none. */
export type PrepatchPolicy = 'fail' | 'warn';

/**
 * The worker's pre-patch run of a check that exited 0: whether the checkout had a patch at all,
 * and how the same command exited on `base` (the checkout's commit) with the current tests; or
 * why it was not run.
 */
export type PrepatchReport =
  { applied: false } | { applied: true; base: string; exit_code: number } | { skipped: string } | { error: string };

/** `tamper_guard:` words that run a guard (fsm/tamper-guard.ts); `allow` runs none. */
export type TamperPolicy = 'fail' | 'warn' | 'revert';

/** A test file (or test configuration) the action added, changed or deleted. */
export interface TamperFinding {
  path: string;
  kind: 'added' | 'modified' | 'deleted';
}

/** The worker's comparison of the test files before and after a guarded action. */
export interface TamperReport {
  findings: TamperFinding[];
  /** Policy `revert`: the files put back as they were before the action. */
  reverted?: string[];
  /** Why the files could not be compared (nothing else is then set). */
  error?: string;
}

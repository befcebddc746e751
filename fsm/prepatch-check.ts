/**
 * `prepatch_check:` (little-loops' agent field), the pure half. A check state (a shell action:
 * the tests) whose gate passes is run once more by the worker on the code as it was before the
 * patch, with the tests as they are now (activities/prepatch.ts). A check that passes there too
 * proves nothing about the patch: the patch was not applied, or the tests do not exercise it. So
 * the gate does not pass: `fail` fails the state, `warn` records it and lets the pass stand,
 * `allow` (or no field) runs no check. A state without a policy issues exactly the action input
 * it always did.
 */
import type { LoopDefinition, StateConfig } from './schema.js';
import type { PrepatchPolicy, PrepatchReport } from './check-reports.js';
import { actionKind } from './action.js';

/** The words that run a check; `allow` is accepted too, and runs none. */
const PREPATCH_POLICIES: readonly PrepatchPolicy[] = ['fail', 'warn'];

/** The state's policy (its own, else the loop's), or undefined when no check runs (only gates of shell actions are re-run). */
export function prepatchPolicy(def: LoopDefinition, state: StateConfig): PrepatchPolicy | undefined {
  const word = state.prepatch_check ?? def.prepatch_check;
  if (!(PREPATCH_POLICIES as readonly string[]).includes(word ?? '')) return undefined;
  // A gate is a shell action whose verdict routes: not a terminal's, not a `next:` state's.
  if (state.action === undefined || actionKind(state) !== 'shell' || state.terminal || state.next !== undefined)
    return undefined;
  return word as PrepatchPolicy;
}

/** What the worker's pre-patch run found, in one line, or undefined when the patch is what makes the check pass. */
export function prepatchFinding(report: PrepatchReport): string | undefined {
  if ('skipped' in report || 'error' in report) return undefined;
  if (!report.applied) return 'no patch was applied: the checkout has no changes against its commit';
  return report.exit_code === 0
    ? `the check passes without the patch too (on ${report.base} with the tests as they are now)`
    : undefined;
}

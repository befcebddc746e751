/**
 * `tamper_guard:` (little-loops' agent field), the pure half: which policy a state runs under,
 * and what the worker's comparison of the test files means for the state. The worker snapshots
 * the test files and the test runner's configuration before the state's action and compares them
 * after it (activities/tamper-guard.ts); the core records what changed (a `tamper_guard` event
 * naming the files) and decides: `fail` fails the state, `revert` fails it only when a change
 * could not be undone, `warn` lets the run go on. `allow` (or no field) runs no guard. A state
 * without a policy issues exactly the action input it always did.
 */
import type { LoopDefinition, StateConfig } from './schema.js';
import type { TamperPolicy, TamperReport } from './check-reports.js';

/** The words that run a guard; `allow` is accepted too, and runs none. */
const TAMPER_POLICIES: readonly TamperPolicy[] = ['fail', 'warn', 'revert'];

/** The state's policy (its own, else the loop's), or undefined when no guard runs. */
export function tamperPolicy(def: LoopDefinition, state: StateConfig): TamperPolicy | undefined {
  const word = state.tamper_guard ?? def.tamper_guard;
  return (TAMPER_POLICIES as readonly string[]).includes(word ?? '') ? (word as TamperPolicy) : undefined;
}

/** One line per changed file: `deleted: tests/a.test.ts`. */
export function tamperFindings(report: TamperReport): string[] {
  return report.findings.map((f) => `${f.kind}: ${f.path}`);
}

/**
 * Why the state fails, or undefined when it goes on: `fail` with any change, `revert` with a
 * change it could not undo, any policy but `warn` when the files could not be compared.
 */
export function tamperFailure(policy: TamperPolicy, report: TamperReport): string | undefined {
  if (report.error !== undefined)
    return policy === 'warn'
      ? undefined
      : `tamper_guard: ${policy}: the test files could not be checked: ${report.error}`;
  if (report.findings.length === 0 || policy === 'warn') return undefined;
  const reverted = new Set(report.reverted ?? []);
  const left = policy === 'revert' ? report.findings.filter((f) => !reverted.has(f.path)) : report.findings;
  if (left.length === 0) return undefined;
  const files = left.map((f) => `${f.path} (${f.kind})`).join(', ');
  return policy === 'revert'
    ? `tamper_guard: revert: the action changed test files it could not be reverted on: ${files}`
    : `tamper_guard: fail: the action changed test files: ${files}; fix the code, not the tests (or set tamper_guard: warn on this state)`;
}

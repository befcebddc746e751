/**
 * A passing gate under `prepatch_check:` (fsm/prepatch-check.ts): the worker's pre-patch run is
 * recorded as a `prepatch_check` event, and under `fail` a check that passes without the patch
 * (or a checkout with no patch) does not pass the gate.
 */
import { emit, type Draft } from './draft.js';
import { prepatchFinding, prepatchPolicy } from '../prepatch-check.js';
import type { StateConfig } from '../schema.js';
import type { ActionResult } from '../types.js';
import { stateVerdicts } from '../verdicts.js';

/** Why the passing `verdict` does not stand, or undefined when it does (the event is emitted either way). */
export function prepatchGate(
  d: Draft,
  state: StateConfig,
  action: ActionResult | null,
  verdict: string,
): string | undefined {
  const report = action?.prepatch;
  const policy = prepatchPolicy(d.def, state);
  if (report === undefined || policy === undefined) return undefined;
  if (verdict !== (stateVerdicts(d.def, state)?.pass ?? 'yes')) return undefined;
  const finding = prepatchFinding(report);
  const message =
    finding ??
    ('skipped' in report
      ? `not checked: ${report.skipped}`
      : 'error' in report
        ? `not checked: ${report.error}`
        : report.applied
          ? `the check fails without the patch (on ${report.base}): the patch is what makes it pass`
          : 'no patch was applied');
  const outcome = finding !== undefined ? 'flagged' : 'skipped' in report || 'error' in report ? 'skipped' : 'clean';
  emit(d, 'prepatch_check', { state: d.snap.current, policy, outcome, message });
  return finding !== undefined && policy === 'fail' ? `prepatch_check: fail: ${finding}` : undefined;
}

/**
 * How `ll-loop ui` says a run ended, in the CLI's words: its outcome (reporters/
 * outcome-words.ts) and the end line `ll-loop status` prints (reporters/human.ts: the
 * error, with its fix, whole), and what Stop answers (as `ll-loop stop` says it).
 */
import type { RunEnd } from '../../runs/follow/run-close.js';
import type { StopReport } from '../../runs/control/stop-run.js';
import { closedWithoutResult } from '../../runs/follow/closed-without-result.js';
import { createHumanReporter } from '../../reporters/human.js';
import { loopOutcome, outcomeOfStatus } from '../../reporters/outcome-words.js';
import { createStyle } from '../../reporters/style.js';
import type { ExecutionResult } from '../../fsm/types.js';
import type { RunEndView } from './run-source.js';

/** The end line of a loop result, as `ll-loop status` (and `run`) print it, without colour. */
function endLineOf(result: ExecutionResult, id: string): string {
  let text = '';
  createHumanReporter((t) => (text += t), createStyle(false), 0, 'quiet').onResult(result, { instanceId: id });
  return text.trim();
}

/** The end message of a followed run (`end` undefined: its history said nothing of its close). */
export function runEndView(id: string, end: RunEnd | undefined): RunEndView {
  if (!end) return { status: 'unknown', outcome: 'unknown', summary: 'how the run ended is not in its history' };
  const result = end.result;
  if (result) return { status: end.status, outcome: loopOutcome(result), summary: endLineOf(result, id) };
  // As `ll-loop status` says it of a run without a loop result: refused its scopes (with the fix),
  // else with Temporal's reason.
  const reason = 'reason' in end && end.reason ? end.reason : undefined;
  const failure = 'failure' in end && end.failure ? end.failure : reason ? { type: '', message: reason } : undefined;
  return {
    status: end.status,
    outcome: outcomeOfStatus(end.status),
    summary: closedWithoutResult(id, end.status, failure),
  };
}

/** What the page's Stop answers, from the stop's report (as `ll-loop stop` says it). */
export function stopAnswer(report: StopReport): string {
  if (report.outcome === 'terminated') return `stopped ${report.id} (terminated: no loop result was recorded)`;
  if (report.result) {
    const line = endLineOf(report.result, report.id);
    return report.outcome === 'cancelled'
      ? `stopped ${report.id}: ${line}`
      : `${report.id} ended before the stop took effect (${loopOutcome(report.result)}): ${line}`;
  }
  return `${report.id} closed (${outcomeOfStatus(report.status)})`;
}

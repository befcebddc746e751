/**
 * The progress lines of the agent fields' findings (fsm/tamper-guard.ts, fsm/prepatch-check.ts):
 * the files a guarded action changed, and a passing check's outcome before the patch.
 */
import { oneLine } from '../fsm/format.js';
import type { ReadEvent } from '../fsm/run/events.js';
import { safeText } from './safe-text.js';
import type { Style } from './style.js';

type CheckEvent = Extract<ReadEvent, { event: 'tamper_guard' | 'prepatch_check' }>;

/** `⚠ tamper_guard (fail): deleted: tests/a.py`, or `· prepatch_check (fail): the check fails without the patch …`. */
export function checkLine(event: CheckEvent, style: Style): string {
  if (event.event === 'tamper_guard') {
    const changed = event.findings?.length ? event.findings.join(', ') : (event.error ?? '?');
    const reverted = event.reverted?.length ? `; reverted ${event.reverted.length}` : '';
    return style.yellow(
      `⚠ tamper_guard (${safeText(event.policy ?? '?')}): ${safeText(oneLine(changed, 300))}${reverted}`,
    );
  }
  const flagged = event.outcome === 'flagged';
  const text = `${flagged ? '⚠' : '·'} prepatch_check (${safeText(event.policy ?? '?')}): ${safeText(oneLine(event.message ?? '?', 300))}`;
  return flagged ? style.yellow(text) : style.dim(text);
}

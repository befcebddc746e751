/**
 * What `logs` and `logs --follow` print of one action (logs.ts, logs-follow.ts): its header, where
 * its output came from, and its streams, marked and made safe. A helper of the `logs` command.
 */
import { formatDuration } from '../../fsm/format.js';
import type { ActionLogRecord, StreamCut } from '../../runs/follow/action-logs.js';
import { sizeText } from '../../loader/payload-limit.js';
import { safeText } from '../../reporters/safe-text.js';

export interface LogsOptions {
  cwd: string;
  target: string;
  /** Only actions of this state (in the run or a sub-loop). */
  state?: string;
  /** A parallel state's item: the output of that item's child run instead (its latest, by index). */
  item?: number;
  /** Keep printing new actions' output until the run ends (line by line on the worker's host). */
  follow: boolean;
  json: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** `check · pass 2 · exit 1 · 1.2s` (with the sub-loop, attempt, timeout or signal when they apply). */
export function headerOf(r: ActionLogRecord): string {
  const where = r.subloop ? `${r.subloop.loop} › ${r.state}` : r.state;
  const parts = [safeText(where), `pass ${r.pass}`];
  if (r.attempt !== undefined) parts.push(`attempt ${r.attempt}`);
  parts.push(`exit ${r.exit_code}`);
  if (r.timed_out) parts.push('timed out');
  if (r.signal) parts.push(`signal ${r.signal}`);
  parts.push(formatDuration(r.duration_ms));
  return `=== ${parts.join(' · ')} ===`;
}

/** One stream's block: its mark, then its text (made safe), or that it was empty. */
function block(mark: string, text: string): string {
  if (text === '') return `--- ${mark}: (empty)\n`;
  return `--- ${mark}:\n${safeText(text)}${text.endsWith('\n') ? '' : '\n'}`;
}

/** Where the output shown came from, when it is not simply the complete result. */
function sourceNote(r: ActionLogRecord): string | undefined {
  if (!r.truncated) return undefined;
  const files = [r.log_file, r.stderr_file]
    .filter((f) => f !== undefined)
    .map((f) => safeText(f))
    .join(', ');
  if (r.files_missing) {
    return `(only the tail kept in Temporal is shown: the output files, which keep each stream's first and last MiB, are ${files || "in the worker's run directory"} on the worker's machine, not found here)`;
  }
  if (r.source === 'file+history')
    return `(stdout and stderr together from ${safeText(r.log_file ?? '')}; stderr's tail from Temporal${r.cut?.stdout ? `;${cutText(r.cut.stdout, 'the file')}; the middle is kept nowhere` : ''})`;
  const cuts = [cutText(r.cut?.stdout, 'stdout'), cutText(r.cut?.stderr, 'stderr')].filter((c) => c !== '');
  return cuts.length === 0
    ? `(from ${files}: the whole output)`
    : `(from ${files}:${cuts.join(';')}; the middle is kept nowhere)`;
}

/** ` stdout printed 100.0 MiB, 98.0 MiB cut from the middle (kept the first and last MiB)`, or ''. */
function cutText(cut: StreamCut | undefined, what: string): string {
  if (cut === undefined) return '';
  return ` ${what} printed ${sizeText(cut.total_bytes)}, ${sizeText(cut.cut_bytes)} cut from the middle (kept the first and last MiB)`;
}

export function printRecord(r: ActionLogRecord, out: (t: string) => void): void {
  let text = `${headerOf(r)}\n`;
  const note = sourceNote(r);
  if (note) text += `${note}\n`;
  text += block(r.source === 'file+history' ? 'stdout+stderr' : 'stdout', r.stdout);
  text += block('stderr', r.stderr);
  out(`${text}\n`);
}

/**
 * `ll-loop logs --follow` on the worker's host: each running action's output printed line by
 * line as it is written (runs/live-actions.ts), under a `=== state · pass N · running ===` line;
 * when the action ends, its usual header closes it instead of a second copy of its output.
 * Lines are made safe for a terminal (reporters/safe-text.ts) like every action-provided text.
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import { safeText } from '../../reporters/safe-text.js';
import { liveActionWatcher, type LiveAction } from '../../runs/follow/live-actions.js';

export interface StreamedLines {
  onEvent: (event: TimedEvent) => void;
  /** Whether the action that just ended in `workflowId` had its output printed as it came (once). */
  wasStreamed: (workflowId: string) => boolean;
  close: () => void;
}

/** Prints the run's actions' output as it is written; see the module comment. */
export function streamedLines(
  runId: string,
  cwd: string,
  opts: { state?: string; out: (text: string) => void },
): StreamedLines {
  const streamed = new Set<string>();
  const partial = new Map<string, string>();
  const wanted = (a: LiveAction): boolean => opts.state === undefined || a.state === opts.state;
  const watcher = liveActionWatcher(runId, cwd, {
    onFirstOutput: (a) => {
      if (!wanted(a)) return;
      // A sub-loop's action is named by its loop, as `logs` names it.
      const where = a.workflowId === runId ? a.state : `${a.loop || a.workflowId} › ${a.state}`;
      const attempt = a.attempt > 1 ? ` · attempt ${a.attempt}` : '';
      opts.out(`=== ${safeText(where)} · pass ${a.pass}${attempt} · running ===\n`);
    },
    onText: (a, text) => {
      if (!wanted(a)) return;
      const lines = ((partial.get(a.workflowId) ?? '') + text).split('\n');
      partial.set(a.workflowId, lines.pop() ?? '');
      for (const line of lines) opts.out(`${safeText(line)}\n`);
    },
    onRestart: (a) => {
      if (wanted(a)) opts.out('[ll-loop: the live output started over at its cap; lines were skipped]\n');
    },
    onEnd: (a, wasStreamed) => {
      const rest = partial.get(a.workflowId);
      partial.delete(a.workflowId);
      if (rest) opts.out(`${safeText(rest)}\n`);
      if (wasStreamed && wanted(a)) streamed.add(a.workflowId);
    },
  });
  return {
    onEvent: watcher.onEvent,
    wasStreamed: (id) => streamed.delete(id),
    close: watcher.close,
  };
}

/**
 * A run's actions' output while they run, driven by its event stream: at each `action_start` (of
 * the run or a sub-loop) the action's live file is tailed (runs/live-output.ts) until the event
 * that ends the action. Used by `ll-loop logs --follow` and `ll-loop ui`.
 */
import type { TimedEvent } from '../../fsm/run/events.js';
import { isKnownEvent } from '../../fsm/run/event-shape.js';
import { LiveOutputReader } from './live-output.js';

/** The action being watched: where it runs, its state and pass. */
export interface LiveAction {
  workflowId: string;
  /** The loop it belongs to (a sub-loop's own name; '' before its `loop_start` was seen). */
  loop: string;
  state: string;
  pass: number;
  attempt: number;
}

export interface LiveActionHandlers {
  /** The action's first output arrived (called once per action, before its first `onText`). */
  onFirstOutput?: (action: LiveAction) => void;
  onText: (action: LiveAction, text: string) => void;
  onRestart?: (action: LiveAction) => void;
  /** The action ended; `streamed`: some of its output was handed on. */
  onEnd?: (action: LiveAction, streamed: boolean) => void;
}

/** The events after which a workflow's running action (if any) has ended. */
const ENDS_ACTION = new Set(['action_complete', 'action_error', 'loop_complete', 'subloop_start', 'evaluate']);

/**
 * A listener for the run's events (`followEvents`' `onEvent`) that tails each action's output.
 * `close()` stops every reader (the run ended, or the watcher went away).
 */
export function liveActionWatcher(
  runId: string,
  cwd: string,
  handlers: LiveActionHandlers,
): { onEvent: (event: TimedEvent) => void; close: () => void } {
  const passes = new Map<string, number>();
  const loops = new Map<string, string>();
  const running = new Map<string, { action: LiveAction; reader: LiveOutputReader; streamed: boolean }>();
  const end = (id: string): void => {
    const watched = running.get(id);
    if (!watched) return;
    running.delete(id);
    watched.reader.stop();
    handlers.onEnd?.(watched.action, watched.streamed);
  };
  const onEvent = (event: TimedEvent): void => {
    if (!isKnownEvent(event)) return;
    const id = event.subloop?.workflow_id ?? runId;
    if (event.event === 'state_enter') passes.set(id, event.iteration || 1);
    if (event.event === 'loop_start') loops.set(id, event.loop ?? '');
    if (ENDS_ACTION.has(event.event)) end(id);
    if (event.event !== 'action_start') return;
    end(id);
    const action: LiveAction = {
      workflowId: id,
      loop: loops.get(id) ?? '',
      state: event.state ?? '',
      pass: passes.get(id) ?? 1,
      attempt: event.attempt ?? 1,
    };
    const watched = { action, streamed: false, reader: undefined as unknown as LiveOutputReader };
    watched.reader = new LiveOutputReader(
      { cwd, instanceId: id, state: action.state },
      {
        onText: (text) => {
          if (!watched.streamed) handlers.onFirstOutput?.(action);
          watched.streamed = true;
          handlers.onText(action, text);
        },
        onRestart: () => handlers.onRestart?.(action),
      },
    );
    running.set(id, watched);
  };
  return {
    onEvent,
    close: () => {
      for (const id of [...running.keys()]) end(id);
    },
  };
}

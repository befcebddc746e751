/**
 * An event as plain text: its name and its fields as `key=value`, whatever the event is. For
 * `ll-loop history` (every event) and for events a reader does not know (an earlier release's).
 */
import { oneLine } from '../fsm/format.js';
import type { TimedEvent } from '../fsm/run/events.js';
import { safeText } from './safe-text.js';

/** The event's fields but `skip` as `key=value` (strings bare unless they need quotes), each cut to one line. */
export function plainFields(event: TimedEvent, skip: readonly string[] = ['event', 'ts']): string {
  return Object.entries(event)
    .filter(([k]) => !skip.includes(k))
    .map(([k, v]) => {
      const text = typeof v === 'string' ? (/[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v) : JSON.stringify(v);
      // Values may be action output (errors, captured values): shown, never acted on by the terminal.
      return `${k}=${safeText(oneLine(text, 120))}`;
    })
    .join(' ');
}

/** `name key=value …` without the stream's bookkeeping (number, time, sub-loop origin). */
export function plainEvent(event: TimedEvent): string {
  return `${event.event} ${plainFields(event, ['event', 'ts', 'seq', 'subloop', 'action_output'])}`.trimEnd();
}

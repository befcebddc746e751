/**
 * A person's part in a run, as `ll-loop logs` shows it between the actions' output: the waits for
 * an answer, the answers (by whom, after how long), the deadlines, pauses and steers. One plain
 * line each (made safe), and the event as it is for `--json`.
 */
import { formatDuration } from '../../fsm/format.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import { safeText } from '../../reporters/safe-text.js';

/** The events that are a person's doing (or waiting). */
const PERSON_EVENTS = ['human_wait', 'human_answer', 'human_timeout', 'paused', 'unpaused', 'steered'] as const;

export interface PersonRecord {
  ts: string;
  event: (typeof PERSON_EVENTS)[number];
  state: string;
  /** The line `logs` prints. */
  text: string;
  /** The event's own fields (by, verdict, latency_ms, prompt, deadline, to, note, …). */
  fields: Record<string, unknown>;
}

const str = (v: unknown): string => safeText(typeof v === 'string' ? v : String(v ?? '?'));
const ms = (v: unknown): string => formatDuration(typeof v === 'number' ? v : 0);

function textOf(event: string, e: Record<string, unknown>): string {
  switch (event) {
    case 'human_wait':
      return `waiting for a person${e.deadline === undefined ? '' : ` until ${str(e.deadline)}`} (${str(e.ask)}): ${str(e.prompt)}`;
    case 'human_answer':
      return `answered ${str(e.verdict)} by ${str(e.by)} after ${ms(e.latency_ms)}`;
    case 'human_timeout':
      return `nobody answered within ${ms(e.waited_ms)}: the deadline routes it`;
    case 'paused':
      return `paused by ${str(e.by)}`;
    case 'unpaused':
      return `unpaused by ${str(e.by)} after ${ms(e.paused_ms)}`;
    default:
      return `steered from ${str(e.from)} to ${str(e.to)} (instead of ${str(e.replaced)}) by ${str(e.by)}${e.note === undefined ? '' : `: ${str(e.note)}`}`;
  }
}

/** The record of a person's event, or undefined for any other event (and sub-loops' events). */
export function personRecord(e: TimedEvent): PersonRecord | undefined {
  if (e.subloop !== undefined || !(PERSON_EVENTS as readonly string[]).includes(e.event)) return undefined;
  const { ts, event, subloop: _s, ...fields } = e as unknown as Record<string, unknown> & { ts: string; event: string };
  const state = typeof fields.state === 'string' ? fields.state : typeof fields.from === 'string' ? fields.from : '?';
  return { ts, event: event as PersonRecord['event'], state, text: textOf(event, fields), fields };
}

/** `=== review · 12:00:03 · answered yes by ann@host after 3s ===` */
export function personLine(r: PersonRecord): string {
  return `=== ${safeText(r.state)} · ${r.text} ===\n\n`;
}

/**
 * The event union (fsm/run/events.ts): docs/cli.md lists exactly its events and fields, and readers
 * meet events they do not know — an earlier release's lines — and show them as they are.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { EVENT_FIELDS, isCompleteEvent, isKnownEvent, parseEvent } from '../../fsm/run/event-shape.js';
import { createHumanReporter } from '../../reporters/human.js';
import { plainEvent } from '../../reporters/plain-event.js';
import { createStyle } from '../../reporters/style.js';
import { actionLogCollector } from '../../runs/follow/action-logs.js';

/** The events.jsonl table of docs/cli.md: event name → its fields as listed (`name` or `name?`). */
function documentedEvents(): Map<string, string[]> {
  const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### `events.jsonl`'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| `event` |')));
  const rows = new Map<string, string[]>();
  for (const row of table.split('\n').filter((l) => l.startsWith('| `'))) {
    const [, name, fields] = row.split('|').map((c) => c.trim());
    if (name === '`event`') continue;
    rows.set(
      name!.replaceAll('`', ''),
      [...fields!.matchAll(/`([a-z_]+)`(\?)?/g)].map((m) => m[1]! + (m[2] ?? '')),
    );
  }
  return rows;
}

const line = (json: string): TimedEvent => {
  const event = parseEvent(JSON.parse(json));
  if (!event) throw new Error(`not an event: ${json}`);
  return event;
};

function shown(events: TimedEvent[]): string {
  let text = '';
  const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
  for (const e of events) reporter.onEvent(e);
  return text;
}

describe('the event reference in docs/cli.md', () => {
  it('lists every event of the union with exactly its fields', () => {
    const documented = documentedEvents();
    const expected = new Map(
      Object.entries(EVENT_FIELDS).map(([name, fields]) => [
        name,
        Object.entries(fields).map(([f, kind]) => f + (kind.endsWith('?') ? '?' : '')),
      ]),
    );
    expect([...documented.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [name, fields] of expected) expect(documented.get(name), name).toEqual(fields);
  });
});

describe('events readers do not know', () => {
  const started = line(
    '{"event":"loop_start","loop":"l","initial":"a","max_iterations":3,"seq":1,"ts":"2026-01-01T00:00:00.000Z"}',
  );
  const entered = line('{"event":"state_enter","state":"a","iteration":1,"seq":2,"ts":"2026-01-01T00:00:00.000Z"}');

  it('parses a line into an event, and anything without an event name into none', () => {
    expect(isCompleteEvent(started)).toBe(true);
    expect(parseEvent(JSON.parse('{"state":"a"}'))).toBeUndefined();
    expect(parseEvent(JSON.parse('[1]'))).toBeUndefined();
    expect(parseEvent(JSON.parse('"loop_start"'))).toBeUndefined();
  });

  it('an event name of another release is shown as it is, among the known lines', () => {
    const old = line('{"event":"checkpoint_saved","state":"a","path":"x y","seq":3,"ts":"2026-01-01T00:00:00.000Z"}');
    expect(isKnownEvent(old)).toBe(false);
    expect(plainEvent(old)).toBe('checkpoint_saved state=a path="x y"');
    expect(shown([started, entered, old])).toBe('       checkpoint_saved state=a path="x y"\n');
  });

  it('a known name whose field has another kind (an older shape) is shown as it is, never read by name', () => {
    const older = line(
      '{"event":"output_reask","state":"a","ask":2,"asks":3,"errors":"not JSON","seq":3,"ts":"2026-01-01T00:00:00.000Z"}',
    );
    expect(isKnownEvent(older)).toBe(false);
    expect(shown([started, entered, older])).toBe('       output_reask state=a ask=2 asks=3 errors="not JSON"\n');
    const records: unknown[] = [];
    actionLogCollector('r', (r) => records.push(r))(
      line('{"event":"action_complete","state":"a","exit_code":"0","seq":4,"ts":"2026-01-01T00:00:00.000Z"}'),
    );
    expect(records).toEqual([]);
  });

  it('a known event without fields an earlier release did not write is read, with ? for what is missing', () => {
    const bare = [
      'rate_limited',
      'budget_spent',
      'output_reask',
      'handoff',
      'fatal_error',
      'action_error',
      'route',
      'action_retry',
      'subloop_complete',
      'host_change',
    ].map((name, i) => line(`{"event":"${name}","seq":${i + 3},"ts":"2026-01-01T00:00:00.000Z"}`));
    for (const e of bare) expect(isKnownEvent(e), e.event).toBe(true);
    const text = shown([started, entered, ...bare]);
    expect(text).toContain('→ ?');
    expect(text).toContain('↻ output missed its schema (?); asking again (?/?)');
    expect(text).toContain('budget spent: ? of ? ?');
  });
});

/**
 * The `ll-loop ui` server's run hub (ui/server/run-hub.ts): a page that opens a run (or whose
 * stream reconnects) after its follower has seen things gets them as its backlog: the events, and
 * the newest state the run's events file announced ahead of them, which a page that joins during
 * a quick action's workflow task would otherwise not light until the history catches up.
 */
import { describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { RunHub } from '../../ui/server/run-hub.js';
import type { RunFollowSink, RunSource } from '../../ui/server/run-source.js';
import type { RunMessage } from '../../ui/server/wire.js';

/** A source whose one run is driven by the test through the sink it is handed. */
function drivenSource(): { source: RunSource; sink: () => RunFollowSink } {
  let given: RunFollowSink | undefined;
  const never = new Promise<void>(() => {});
  const unused = () => Promise.reject(new Error('not used here'));
  const source: RunSource = {
    listRuns: () => Promise.resolve([]),
    followRun: (_id, sink) => {
      given = sink;
      return never;
    },
    stop: unused,
    resume: unused,
    act: unused,
    status: () => Promise.resolve(null),
  };
  return { source, sink: () => given! };
}

const enter = (seq: number, state: string): TimedEvent =>
  ({ event: 'state_enter', state, iteration: 1, seq, ts: '2026-01-01T00:00:00.000Z' }) as unknown as TimedEvent;

function page(): { messages: RunMessage[]; send(m: RunMessage): void } {
  const messages: RunMessage[] = [];
  return { messages, send: (m) => messages.push(m) };
}

describe('the run hub', () => {
  it('gives a page that comes later the newest announced state, after the events', () => {
    const { source, sink } = drivenSource();
    const hub = new RunHub(source);
    const first = page();
    hub.subscribe('r1', first);
    sink().event(enter(1, 'a'));
    sink().liveState(3, 'c');
    sink().liveState(2, 'b'); // an older announcement read late changes nothing
    expect(first.messages.filter((m) => m.type === 'live_state')).toHaveLength(2);

    const later = page();
    hub.subscribe('r1', later);
    const kinds = later.messages.map((m) => m.type);
    expect(kinds).toEqual(['events', 'live_state']);
    expect(later.messages[1]).toEqual({ type: 'live_state', seq: 3, state: 'c' });
    expect(hub.followersStarted).toBe(1);
  });

  it('gives no announcement before there is one', () => {
    const { source, sink } = drivenSource();
    const hub = new RunHub(source);
    hub.subscribe('r2', page());
    sink().event(enter(1, 'a'));
    const later = page();
    hub.subscribe('r2', later);
    expect(later.messages.map((m) => m.type)).toEqual(['events']);
  });
});

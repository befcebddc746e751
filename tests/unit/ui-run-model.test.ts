/**
 * The page's model of a run (ui/page/run-model.ts), folded from the server's messages: the lit
 * state, edge counts and path, an action's streamed output replaced by its whole output when it
 * ends, output of a sub-loop's action kept apart, and a new backlog starting the model over.
 */
import { describe, expect, it } from 'vitest';
import type { TimedEvent } from '../../fsm/run/events.js';
import { applyMessage, edgeKey, emptyModel, litAhead, litState } from '../../ui/page/run-model.js';

let seq = 0;
const ev = (fields: Record<string, unknown>): TimedEvent =>
  ({ ...fields, seq: ++seq, ts: '2026-01-01T00:00:00.000Z' }) as unknown as TimedEvent;
const graph = { loop: 'l', nodes: [], edges: [] };

describe('the page model of a run', () => {
  it('lights the current state, counts edges and keeps the path', () => {
    const m = emptyModel('run-1');
    applyMessage(m, { type: 'graph', graph });
    applyMessage(m, {
      type: 'events',
      events: [
        ev({ event: 'loop_start', loop: 'l' }),
        ev({ event: 'state_enter', state: 'a', iteration: 1 }),
        ev({ event: 'state_enter', state: 'b', iteration: 1 }),
        ev({ event: 'state_enter', state: 'a', iteration: 2 }),
        ev({ event: 'state_enter', state: 'b', iteration: 2 }),
      ],
    });
    expect(m.current).toBe('b');
    expect(m.edgeCounts.get(edgeKey('a', 'b'))).toBe(2);
    expect(m.edgeCounts.get(edgeKey('b', 'a'))).toBe(1);
    expect(m.path).toEqual(['a', 'b', 'a', 'b']);
    applyMessage(m, { type: 'events', events: [ev({ event: 'loop_complete', final_state: 'done' })] });
    expect(m.ended).toBe(true);
    expect(m.current).toBe('done');
  });

  it("streams a running action's output, then shows its whole output", () => {
    const m = emptyModel('run-1');
    applyMessage(m, { type: 'graph', graph });
    applyMessage(m, {
      type: 'events',
      events: [ev({ event: 'state_enter', state: 'a', iteration: 1 }), ev({ event: 'action_start', state: 'a' })],
    });
    applyMessage(m, { type: 'output', workflowId: 'run-1', state: 'a', pass: 1, text: 'one\n' });
    applyMessage(m, { type: 'output', workflowId: 'run-1', state: 'a', pass: 1, text: '<script>' });
    expect(m.actions[0]).toMatchObject({ running: true, text: 'one\n<script>' });
    applyMessage(m, {
      type: 'events',
      events: [
        ev({
          event: 'action_complete',
          state: 'a',
          exit_code: 1,
          duration_ms: 5,
          action_output: { output: 'one\n<script>\n', stderr: 'bad\n', exit_code: 1 },
        }),
      ],
    });
    expect(m.actions[0]).toMatchObject({ running: false, exitCode: 1, text: 'one\n<script>\n── stderr ──\nbad\n' });
  });

  it("keeps a sub-loop's output with its own action", () => {
    const m = emptyModel('run-1');
    applyMessage(m, { type: 'graph', graph });
    const sub = { depth: 1, workflow_id: 'run-1.s.2' };
    applyMessage(m, {
      type: 'events',
      events: [
        ev({ event: 'subloop_start', state: 's', loop: 'inner' }),
        ev({ event: 'loop_start', loop: 'inner', subloop: sub }),
        ev({ event: 'action_start', state: 'x', subloop: sub }),
      ],
    });
    applyMessage(m, { type: 'output', workflowId: 'run-1.s.2', state: 'x', pass: 1, text: 'child' });
    expect(m.actions).toHaveLength(1);
    expect(m.actions[0]).toMatchObject({ workflowId: 'run-1.s.2', depth: 1, text: 'child' });
    expect(m.children.get('run-1.s.2')).toEqual({ loop: 'inner', depth: 1 });
  });

  it('starts over when the stream sends its backlog again (a reconnection)', () => {
    const m = emptyModel('run-1');
    applyMessage(m, { type: 'graph', graph });
    applyMessage(m, { type: 'events', events: [ev({ event: 'state_enter', state: 'a', iteration: 1 })] });
    expect(applyMessage(m, { type: 'graph', graph })).toBe(true);
    expect(m.events).toEqual([]);
    expect(m.path).toEqual([]);
    expect(m.runId).toBe('run-1');
  });

  it('knows a run paused on a handoff waits for a person, until it goes on', () => {
    const m = emptyModel('run-1');
    applyMessage(m, { type: 'graph', graph });
    applyMessage(m, {
      type: 'events',
      events: [
        ev({ event: 'state_enter', state: 'a', iteration: 1 }),
        ev({ event: 'handoff', state: 'a', mode: 'pause' }),
      ],
    });
    expect(m.waiting).toBe(true);
    applyMessage(m, { type: 'events', events: [ev({ event: 'handoff_resumed', state: 'a', waited_ms: 5 })] });
    expect(m.waiting).toBe(false);
    applyMessage(m, { type: 'notice', message: 'Temporal is unreachable' });
    expect(m.notice).toBe('Temporal is unreachable');
    applyMessage(m, { type: 'notice', message: '' });
    expect(m.notice).toBeUndefined();
  });

  it('lights a state the events file announced before the history brings it, and then the events', () => {
    const m = emptyModel('run-1');
    applyMessage(m, { type: 'graph', graph });
    const enter = ev({ event: 'state_enter', state: 'a', iteration: 1 });
    applyMessage(m, { type: 'events', events: [enter] });
    applyMessage(m, { type: 'live_state', seq: enter.seq + 2, state: 'b' });
    expect(litState(m)).toBe('b');
    expect(litAhead(m)).toBe(true);
    expect(m.current).toBe('a');
    applyMessage(m, {
      type: 'events',
      events: [ev({ event: 'route', from: 'a', to: 'b' }), ev({ event: 'state_enter', state: 'b', iteration: 1 })],
    });
    expect(litState(m)).toBe('b');
    // An announcement the events have passed no longer counts.
    applyMessage(m, { type: 'events', events: [ev({ event: 'state_enter', state: 'c', iteration: 1 })] });
    expect(litState(m)).toBe('c');
    expect(litAhead(m)).toBe(false);
  });

  it('knows how the run ended from its loop_complete, before the end message (no outcome guessed meanwhile)', () => {
    const m = emptyModel('run-1');
    applyMessage(m, { type: 'graph', graph });
    applyMessage(m, {
      type: 'events',
      events: [
        ev({ event: 'state_enter', state: 'done', iteration: 1 }),
        ev({ event: 'loop_complete', final_state: 'done', terminated_by: 'terminal' }),
      ],
    });
    expect(m.ended).toBe(true);
    expect(m.outcome).toBe('succeeded');
    const crashed = emptyModel('run-2');
    applyMessage(crashed, { type: 'graph', graph });
    applyMessage(crashed, {
      type: 'events',
      events: [ev({ event: 'loop_complete', final_state: 'check', terminated_by: 'error', error: 'no route' })],
    });
    expect(crashed.outcome).toBe('error');
    // The server's end message (Temporal says failed) keeps the same word, and brings the end line.
    applyMessage(crashed, { type: 'end', status: 'failed', outcome: 'error', summary: 'Loop failed in state check' });
    expect(crashed.outcome).toBe('error');
    expect(crashed.end?.summary).toBe('Loop failed in state check');
  });

  it("ends a stopped run's running action with the run, and a sub-loop's with the sub-loop", () => {
    const m = emptyModel('run-1');
    applyMessage(m, { type: 'graph', graph });
    const sub = { workflow_id: 'run-1.child', depth: 1 };
    applyMessage(m, {
      type: 'events',
      events: [
        ev({ event: 'state_enter', state: 'work', iteration: 1 }),
        ev({ event: 'action_start', state: 'work' }),
        ev({ event: 'loop_start', loop: 'inner', subloop: sub }),
        ev({ event: 'action_start', state: 'inner-a', subloop: sub }),
        ev({ event: 'loop_complete', final_state: 'inner-a', terminated_by: 'terminal', subloop: sub }),
      ],
    });
    expect(m.actions.map((a) => a.running)).toEqual([true, false]);
    expect(m.children.get('run-1.child')?.outcome).toBe('succeeded');
    applyMessage(m, {
      type: 'events',
      events: [ev({ event: 'loop_complete', final_state: 'work', terminated_by: 'cancelled' })],
    });
    expect(m.actions[0]).toMatchObject({ running: false, cut: true });
    expect(m.outcome).toBe('stopped');
  });

  it('ends every running action when the run closed without a loop_complete (terminated)', () => {
    const m = emptyModel('run-1');
    applyMessage(m, { type: 'graph', graph });
    applyMessage(m, {
      type: 'events',
      events: [ev({ event: 'state_enter', state: 'work', iteration: 1 }), ev({ event: 'action_start', state: 'work' })],
    });
    applyMessage(m, {
      type: 'end',
      status: 'terminated',
      outcome: 'stopped',
      summary: 'it ended without a loop result',
    });
    expect(m.actions[0]).toMatchObject({ running: false, cut: true });
  });
});

/**
 * The span shape of a run whose quick states ran in bursts (workflows/burst-trace.ts), with the
 * OpenTelemetry SDK's own in-memory exporter as the tracer provider: a burst's first state and
 * action are spans, the states it then ran are one `burst <state>` span listing them, and a state it
 * entered without completing (the next burst's first, the terminal) has its spans as usual.
 */
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunStreamEvent } from '../../fsm/run/events.js';
import type { LoopWorkflowInput } from '../../workflows/definitions.js';
import { RunTrace } from '../../workflows/run-trace.js';

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(() => trace.disable());
beforeEach(() => exporter.reset());

let seq = 0;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const ts = (ms: number) => ({ seq: ++seq, ts: new Date(T0 + ms).toISOString() });
const enter = (state: string, iteration: number, ms: number): RunStreamEvent => ({
  event: 'state_enter',
  state,
  iteration,
  ...ts(ms),
});
const start = (state: string, ms: number): RunStreamEvent => ({
  event: 'action_start',
  state,
  action: 'true',
  action_type: 'shell',
  ...ts(ms),
});
const complete = (state: string, exit_code: number, ms: number): RunStreamEvent => ({
  event: 'action_complete',
  state,
  exit_code,
  duration_ms: 3,
  ...ts(ms),
});
const finish = (ms: number): RunStreamEvent =>
  ({
    event: 'loop_complete',
    final_state: 'done',
    terminated_by: 'terminal',
    iterations: 5,
    ...ts(ms),
  }) as RunStreamEvent;

const input = { definition: {}, options: {} } as unknown as LoopWorkflowInput;
const named = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);
const one = (name: string): ReadableSpan => {
  const found = named(name);
  expect(
    found.map((s) => s.name),
    name,
  ).toEqual([name]);
  return found[0]!;
};
const parentName = (s: ReadableSpan) =>
  exporter.getFinishedSpans().find((p) => p.spanContext().spanId === s.parentSpanId)?.name;

describe('a burst in the trace', () => {
  it('its first state and action are spans, the states it ran are one span listing them, the next state has its spans', () => {
    const run = new RunTrace('alt', 'run-1', input);
    // Delivered before the burst runs: its first state and action.
    run.observe([enter('a', 1, 0), start('a', 1)]);
    // The burst's facts: a's result, then b and a ran back to back, then b entered and started (the next burst's first).
    run.observe(
      [
        complete('a', 0, 4),
        enter('b', 2, 5),
        start('b', 5),
        complete('b', 1, 9),
        enter('a', 3, 10),
        start('a', 10),
        complete('a', 0, 14),
        enter('b', 4, 15),
        start('b', 15),
      ],
      true,
    );
    const burst = one('burst b');
    expect(burst.attributes).toEqual({
      'll_loop.burst.states': ['b', 'a'],
      'll_loop.burst.exit_codes': [1, 0],
      'll_loop.burst.duration_ms': [3, 3],
      'll_loop.iteration': 2,
    });
    expect(burst.events).toEqual([]);
    expect(burst.startTime).toEqual([Math.floor((T0 + 5) / 1000), ((T0 + 5) % 1000) * 1e6]);
    expect(burst.endTime).toEqual([Math.floor((T0 + 14) / 1000), ((T0 + 14) % 1000) * 1e6]);
    expect(one('state a').attributes['ll_loop.iteration']).toBe(1);
    expect(one('action a').attributes['ll_loop.action.exit_code']).toBe(0);
    expect(named('state b'), 'b is under way: its span is open').toEqual([]);

    // The next burst reaches the terminal: b's spans end, the terminal state is a span, the run ends.
    run.observe([complete('b', 1, 19), enter('done', 5, 20), finish(20)], true);
    const names = exporter
      .getFinishedSpans()
      .map((s) => s.name)
      .sort();
    expect(names).toEqual(['action a', 'action b', 'burst b', 'll-loop.run alt', 'state a', 'state b', 'state done']);
    for (const name of ['state a', 'state b', 'burst b', 'state done'])
      expect(parentName(one(name))).toBe('ll-loop.run alt');
    expect(parentName(one('action b'))).toBe('state b');
    expect(one('state b').attributes['ll_loop.iteration']).toBe(4);
    expect(one('action b').attributes['ll_loop.action.exit_code']).toBe(1);
  });

  it('events delivered one transition at a time keep a span per state and per action', () => {
    const run = new RunTrace('alt', 'run-2', input);
    run.observe([enter('a', 1, 0), start('a', 1)]);
    run.observe([complete('a', 0, 4), enter('b', 2, 5), start('b', 5)]);
    run.observe([complete('b', 0, 9), enter('done', 3, 10), finish(10)]);
    const names = exporter
      .getFinishedSpans()
      .map((s) => s.name)
      .sort();
    expect(names).toEqual(['action a', 'action b', 'll-loop.run alt', 'state a', 'state b', 'state done']);
  });
});

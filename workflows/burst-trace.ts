/**
 * The trace of a burst (workflows/burst.ts): a burst's first state and action have their spans,
 * as any state's (the burst's local activity runs under that action's); the states it then ran
 * back to back are one span, `burst <state>`, under the run, from the first one's entry to the
 * last one's result, whose attributes list them in order: `ll_loop.burst.states`, and beside them
 * their actions' `ll_loop.burst.exit_codes` and `ll_loop.burst.duration_ms` (`ll_loop.iteration`:
 * the first one's). A state the burst entered but did not complete (the next burst's first, a
 * terminal, a non-quick state) gets its spans as usual. *Why* (docs/decisions.md "Traces"): a span
 * per state and per action cost quick transitions in bursts ~0.15 ms of worker CPU each (+28–40%),
 * a span event per state 10–30 µs; three arrays cost next to nothing, and say what ran, what it
 * returned and how long it took. Workflow code: deterministic, no Node built-ins.
 */
import type { Context, Span } from '@opentelemetry/api';
import type { RunStreamEvent } from '../fsm/run/events.js';
import { open } from './trace-span.js';

type Of<E extends RunStreamEvent['event']> = Extract<RunStreamEvent, { event: E }>;

/** What a burst's trace needs of the run's (workflows/run-trace.ts). */
interface BurstHost {
  /** The run's span's context: the burst span's parent. */
  run(): Context;
  /** Whether an action's span is open (the burst's first action, until its result). */
  actionOpen(): boolean;
  /** End the open state's span (and its action's) at `at`. */
  endState(at: number): void;
  /** The event as any other run's: spans of its own. */
  observe(event: RunStreamEvent): void;
}

export class BurstTrace {
  private span: Span | undefined;
  /** The state entered in this burst whose action has not completed yet. */
  private pending: { enter: Of<'state_enter'>; start?: Of<'action_start'> } | undefined;
  /** The states the burst ran, in order, and their actions' exit codes and durations (ms). */
  private ran: { states: string[]; exitCodes: number[]; durations: number[]; timedOut: number; first: number } = {
    states: [],
    exitCodes: [],
    durations: [],
    timedOut: 0,
    first: 0,
  };
  private last: Of<'action_complete'> | undefined;

  constructor(private readonly host: BurstHost) {}

  /** One of the events a burst's facts gave, in order. */
  observe(event: RunStreamEvent): void {
    switch (event.event) {
      case 'state_enter':
        this.flush();
        this.host.endState(Date.parse(event.ts));
        this.pending = { enter: event };
        return;
      case 'action_start':
        if (this.pending && !this.pending.start && this.pending.enter.state === event.state) {
          this.pending.start = event;
          return;
        }
        break;
      case 'action_complete':
        if (!this.host.actionOpen() && this.pending?.start) {
          this.record(this.pending.enter, event);
          this.pending = undefined;
          return;
        }
        break;
      default:
        break;
    }
    this.flush();
    this.host.observe(event);
  }

  /** The burst's events are all in: a state still under way gets its spans; the burst span ends. */
  end(): void {
    this.flush();
    if (!this.span) return;
    const { states, exitCodes, durations, timedOut, first } = this.ran;
    this.span.setAttributes({
      'll_loop.burst.states': states,
      'll_loop.burst.exit_codes': exitCodes,
      'll_loop.burst.duration_ms': durations,
      'll_loop.iteration': first,
      ...(timedOut > 0 ? { 'll_loop.burst.timed_out': timedOut } : {}),
    });
    this.span.end(this.last === undefined ? undefined : new Date(this.last.ts));
    this.span = undefined;
    this.ran = { states: [], exitCodes: [], durations: [], timedOut: 0, first: 0 };
    this.last = undefined;
  }

  private record(enter: Of<'state_enter'>, done: Of<'action_complete'>): void {
    if (!this.span) {
      this.span = open(`burst ${enter.state}`, this.host.run(), {}, Date.parse(enter.ts)).span;
      this.ran.first = enter.iteration;
    }
    this.ran.states.push(enter.state);
    this.ran.exitCodes.push(done.exit_code);
    this.ran.durations.push(done.duration_ms);
    if (done.timed_out) this.ran.timedOut += 1;
    this.last = done;
  }

  /** A state entered here whose action did not complete here: its spans, as any state's. */
  private flush(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    this.host.observe(p.enter);
    if (p.start) this.host.observe(p.start);
  }
}

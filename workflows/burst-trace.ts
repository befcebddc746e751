/**
 * The trace of a burst (workflows/burst.ts): a burst's first state and action have their spans,
 * as any state's (the burst's local activity runs under that action's); the states it then ran
 * back to back are events of one span, `burst <state>`, under the run: `state <name>` at the
 * state's entry, with its iteration and exit code (its action's duration is the gap to the next). A state the burst
 * entered but did not complete (the next burst's first, a terminal, a non-quick state) gets its
 * spans as usual. *Why:* a span per state and per action cost quick transitions in bursts ~0.15 ms
 * of worker CPU each (+20–28%; docs/decisions.md "Traces"), and a thousand spans are no easier to
 * read than a timeline of a thousand events. Workflow code: deterministic, no Node built-ins.
 */
import type { Attributes, Context, Span } from '@opentelemetry/api';
import type { RunStreamEvent } from '../fsm/run/events.js';
import { open } from './trace-span.js';

type Of<E extends RunStreamEvent['event']> = Extract<RunStreamEvent, { event: E }>;

/** What a burst's trace needs of the run's (workflows/run-trace.ts). */
export interface BurstHost {
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
  private states = 0;
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
          this.ran(this.pending.enter, event);
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
    this.span.setAttribute('ll_loop.burst.states', this.states);
    this.span.end(this.last === undefined ? undefined : new Date(this.last.ts));
    this.span = undefined;
    this.states = 0;
    this.last = undefined;
  }

  private ran(enter: Of<'state_enter'>, done: Of<'action_complete'>): void {
    const at = new Date(enter.ts);
    this.span ??= open(`burst ${enter.state}`, this.host.run(), { 'll_loop.state': enter.state }, at.getTime()).span;
    // Two attributes: each costs its encoding per state (the duration is the gap to the next event).
    const attributes: Attributes = { 'll_loop.iteration': enter.iteration, 'll_loop.action.exit_code': done.exit_code };
    if (done.timed_out) attributes['ll_loop.action.timed_out'] = true;
    this.span.addEvent(`state ${enter.state}`, attributes, at);
    this.states += 1;
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

/**
 * ll-loop's own spans of a run (OpenTelemetry): the run, each state, each action, each LLM
 * evaluation, each sub-loop, fan-out and fan-out item, made from the run's events as the workflow
 * delivers them. They go through the OpenTelemetry API only: a worker that traces (worker/tracing.ts)
 * runs the bundle with Temporal's workflow interceptors, which register the workflow's tracer and
 * export ended spans through a sink (never called in a replay: no span is exported twice); any
 * other worker has no tracer, and each call here is a no-op. Work started inside {@link RunTrace.within}
 * (activities, child runs) carries the innermost open span, so a child run's spans join the
 * parent's trace. Attributes are names, counts and usage: never a command, a prompt or a value.
 * The states a burst of quick actions ran back to back are one span (workflows/burst-trace.ts).
 */
import { context, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import type { RunStreamEvent } from '../fsm/run/events.js';
import type { LlmUsage } from '../fsm/types.js';
import { BurstTrace } from './burst-trace.js';
import { endAt, open, type Open } from './trace-span.js';
import type { LoopWorkflowInput } from './definitions.js';

/** A span of its own around `fn`, under the active one: an LLM evaluation, a fan-out item. */
export async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  const s = open(name, context.active(), attributes);
  try {
    return await context.with(s.ctx, () => fn(s.span));
  } catch (err) {
    s.span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    s.span.end();
  }
}

/** GenAI semantic-convention attributes of one agent call, and its cost. */
export function usageAttributes(usage: LlmUsage | undefined, model: string | undefined): Attributes {
  return {
    ...(model === undefined ? {} : { 'gen_ai.request.model': model }),
    ...(usage?.input_tokens === undefined ? {} : { 'gen_ai.usage.input_tokens': usage.input_tokens }),
    ...(usage?.output_tokens === undefined ? {} : { 'gen_ai.usage.output_tokens': usage.output_tokens }),
    ...(usage?.cost_usd === undefined ? {} : { 'll_loop.cost_usd': usage.cost_usd }),
  };
}

export class RunTrace {
  private readonly run: Open;
  private state: Open | undefined;
  private action: Open | undefined;
  /** A sub-loop or a fan-out under way in the current state. */
  private nested: Open | undefined;
  /** The model and usage of the prompt action under way, set as its result comes back. */
  private agent: { model?: string; usage?: LlmUsage } | undefined;
  private readonly burst = new BurstTrace({
    run: () => this.run.ctx,
    actionOpen: () => this.action !== undefined,
    endState: (at) => this.endState(at),
    observe: (event) => this.observeOne(event),
  });

  constructor(loop: string, instanceId: string, input: LoopWorkflowInput) {
    const kind = input.child === undefined ? 'run' : 'child';
    this.run = open(`ll-loop.${kind} ${loop}`, context.active(), {
      'll_loop.loop': loop,
      'll_loop.run_id': instanceId,
      ...(input.child === undefined ? {} : { 'll_loop.parent_run_id': input.child.parent }),
      ...(input.resume === undefined ? {} : { 'll_loop.continued': true }),
    });
  }

  /** Run `fn` (an effect: its activities, its child runs) under the innermost open span. */
  within<T>(fn: () => Promise<T>): Promise<T> {
    const at = this.nested ?? this.action ?? this.state ?? this.run;
    return context.with(at.ctx, fn);
  }

  /** A prompt action's model, before it runs; its usage, once its result is back. */
  agentCall(model: string | undefined, usage?: LlmUsage): void {
    this.agent = { ...this.agent, ...(model === undefined ? {} : { model }), ...(usage ? { usage } : {}) };
  }

  /**
   * Delivered events: spans open and end with the run's own timestamps. `burst`: the events of a
   * burst's facts (workflows/burst.ts), whose states that ran in it are one span.
   */
  observe(events: readonly RunStreamEvent[], burst = false): void {
    if (!burst) {
      for (const event of events) this.observeOne(event);
      return;
    }
    for (const event of events) this.burst.observe(event);
    this.burst.end();
  }

  private observeOne(event: RunStreamEvent): void {
    const at = Date.parse(event.ts);
    const parentOf = () => (this.state ?? this.run).ctx;
    switch (event.event) {
      case 'state_enter':
        this.endState(at);
        this.state = open(
          `state ${event.state}`,
          this.run.ctx,
          {
            'll_loop.state': event.state,
            'll_loop.iteration': event.iteration,
          },
          at,
        );
        return;
      case 'action_start':
        this.endAction(at);
        this.action = open(
          `action ${event.state}`,
          parentOf(),
          {
            'll_loop.state': event.state,
            'll_loop.action.type': event.action_type,
            ...(event.attempt === undefined ? {} : { 'll_loop.action.attempt': event.attempt }),
            ...(event.action_type === 'prompt' ? { 'gen_ai.operation.name': 'invoke_agent' } : {}),
          },
          at,
        );
        return;
      case 'action_complete':
        this.action?.span.setAttributes({
          'll_loop.action.exit_code': event.exit_code,
          ...(event.timed_out ? { 'll_loop.action.timed_out': true } : {}),
          ...(this.agent ? usageAttributes(this.agent.usage, this.agent.model) : {}),
        });
        this.endAction(at);
        return;
      case 'action_error':
        // Its message may quote the action's output: the status alone, never the text.
        this.action?.span.setStatus({ code: SpanStatusCode.ERROR });
        this.endAction(at);
        return;
      case 'subloop_start':
        this.nested = open(
          `subloop ${event.loop}`,
          parentOf(),
          { 'll_loop.state': event.state, 'll_loop.subloop': event.loop },
          at,
        );
        return;
      case 'fanout_start':
        this.nested = open(
          `fanout ${event.state}`,
          parentOf(),
          {
            'll_loop.state': event.state,
            'll_loop.fanout.count': event.count,
            'll_loop.fanout.max_workers': event.max_workers,
          },
          at,
        );
        return;
      case 'subloop_complete':
        this.nested?.span.setAttributes({ 'll_loop.final_state': event.final_state, 'll_loop.verdict': event.verdict });
        this.endNested(at);
        return;
      case 'fanout_join':
        this.nested?.span.setAttributes({
          'll_loop.fanout.succeeded': event.succeeded,
          'll_loop.fanout.failed': event.failed,
          'll_loop.verdict': event.verdict,
        });
        this.endNested(at);
        return;
      case 'loop_complete':
        this.run.span.setAttributes({
          'll_loop.final_state': event.final_state,
          'll_loop.terminated_by': event.terminated_by,
          'll_loop.iterations': event.iterations,
          ...usageAttributes(event.spent === undefined ? undefined : { cost_usd: event.spent.cost_usd }, undefined),
        });
        if (event.failure) this.run.span.setStatus({ code: SpanStatusCode.ERROR, message: event.terminated_by });
        this.end(at);
        return;
      default:
        return;
    }
  }

  /** End every open span (the run closed, or continues as new: the next execution opens its own). */
  end(at?: number): void {
    this.burst.end();
    this.endState(at);
    endAt(this.run.span, at);
  }

  private endAction(at?: number): void {
    endAt(this.action?.span, at);
    this.action = undefined;
    this.agent = undefined;
  }

  private endNested(at?: number): void {
    endAt(this.nested?.span, at);
    this.nested = undefined;
  }

  private endState(at?: number): void {
    this.endAction(at);
    this.endNested(at);
    endAt(this.state?.span, at);
    this.state = undefined;
  }
}

/**
 * The sink that takes a traced workflow's ended spans to this process's span processor, in place
 * of `makeWorkflowExporter` of @temporalio/interceptors-opentelemetry (same sink, same contract:
 * not called in a replay, so no span is exported twice). Two differences, both for quick
 * transitions (docs/decisions.md "Traces"): a span carries the run's ids (workflow id, run id,
 * type, task queue, namespace), not the whole WorkflowInfo (memo, search attributes, history
 * size…: some 30 attributes to encode per span); and the spans reach the processor after the
 * activation's completion is sent, not before it (the SDK awaits its sinks before completing,
 * and the batch processor encodes a full batch inside `onEnd`).
 */
import type { Attributes } from '@opentelemetry/api';
import { createTraceState } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';

export interface WorkflowSpanSink {
  sinks: InjectedSinks<OpenTelemetrySinks>;
  /** Hand what is waiting to the processor now (before it flushes). */
  drain(): void;
}

/** The run's ids, the attributes each of its spans carries. */
const runAttributes = (info: WorkflowInfo): Attributes => ({
  workflowId: info.workflowId,
  runId: info.runId,
  workflowType: info.workflowType,
  taskQueue: info.taskQueue,
  namespace: info.namespace,
});

function readable(span: SerializableSpan, run: Attributes, resource: Resource): ReadableSpan {
  const { spanContext: serialized, attributes, ...rest } = span;
  const { traceState, ...ids } = serialized;
  const spanContext = { ...ids, ...(traceState ? { traceState: createTraceState(traceState) } : {}) };
  return { ...rest, attributes: { ...attributes, ...run }, spanContext: () => spanContext, resource };
}

export function workflowSpanSink(processor: SpanProcessor, resource: Resource): WorkflowSpanSink {
  let waiting: ReadableSpan[] = [];
  let scheduled = false;
  const drain = (): void => {
    scheduled = false;
    const spans = waiting;
    waiting = [];
    for (const span of spans) processor.onEnd(span);
  };
  return {
    drain,
    sinks: {
      exporter: {
        export: {
          fn: (info, spans) => {
            const run = runAttributes(info);
            for (const span of spans) waiting.push(readable(span, run, resource));
            if (!scheduled) {
              scheduled = true;
              setImmediate(drain);
            }
          },
        },
      },
    },
  };
}

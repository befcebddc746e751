/**
 * Traces of runs (OpenTelemetry), loaded only when worker/tracing-config.ts says this process
 * traces. One tracer provider per process, exporting over OTLP as the standard variables say
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `…_TRACES_ENDPOINT`, `…_HEADERS`, `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_*`). Temporal's own interceptors make the workflow and
 * activity spans; workflow code's spans (the interceptors' and workflows/run-trace.ts's) reach the
 * provider through the `exporter` sink (worker/span-sink.ts), which a replay does not call: a run replayed after a
 * worker restart does not export its spans twice.
 */
import { trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import { workflowSpanSink, type WorkflowSpanSink } from './span-sink.js';

/** What a traced worker adds to its options. */
export interface WorkerTracing {
  interceptors: WorkerInterceptors;
  sinks: InjectedSinks<OpenTelemetrySinks>;
  /** The interceptors of the activities' own client (the scope lock's signals). */
  client: WorkflowClientInterceptor[];
}

interface Tracing {
  provider: BasicTracerProvider;
  /** The workflows' spans' way in (worker/span-sink.ts): one per process, as the processor. */
  sink: WorkflowSpanSink;
}

let tracing: Tracing | undefined;

function start(): Tracing {
  if (tracing) return tracing;
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': 'll-loop' }))
    .merge(envDetectorSync.detect());
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  // The interceptors carry a span's context across Temporal's headers through the active
  // context: without a context manager, an activity's span and a started run's would lose their parent.
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  tracing = { provider, sink: workflowSpanSink(processor, resource) };
  return tracing;
}

/** The interceptors and the workflow spans' sink of a traced worker. */
export function workerTracing(): WorkerTracing {
  const { sink } = start();
  const tracer = trace.getTracer('ll-loop');
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: sink.sinks,
    client: clientTracing(),
  };
}

/** The interceptor of a client that starts runs: its start is the root span of the run's trace. */
export function clientTracing(): WorkflowClientInterceptor[] {
  start();
  return [new OpenTelemetryWorkflowClientInterceptor({ tracer: trace.getTracer('ll-loop') })];
}

/** Send what is buffered (before a process exits, and as the bench measures). */
export async function flushTracing(): Promise<void> {
  tracing?.sink.drain();
  await tracing?.provider.forceFlush();
}

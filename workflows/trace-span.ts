/** Opening and ending ll-loop's spans in workflow code (workflows/run-trace.ts, workflows/burst-trace.ts). */
import { trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

const tracer = () => trace.getTracer('ll-loop');

export interface Open {
  span: Span;
  ctx: Context;
}

/** Times are Dates: a number before the SDK's time origin would be read as a monotonic offset. */
export function open(name: string, parent: Context, attributes: Attributes, startMs?: number): Open {
  const span = tracer().startSpan(
    name,
    { attributes, ...(startMs === undefined ? {} : { startTime: new Date(startMs) }) },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

export const endAt = (span: Span | undefined, ms: number | undefined): void =>
  span?.end(ms === undefined ? undefined : new Date(ms));

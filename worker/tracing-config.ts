/**
 * Whether this process traces runs: the standard OpenTelemetry variables, read without loading
 * any OpenTelemetry code, so a process that does not trace pays nothing (worker/tracing.ts is
 * imported only when this says yes).
 */

/** On when an OTLP endpoint is named and the SDK is not disabled (`OTEL_SDK_DISABLED=true`). */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

let loaded: typeof import('./tracing.js') | undefined;

/** The tracing module when this process traces (loaded at the first call), else undefined. */
export async function loadTracing(env: NodeJS.ProcessEnv = process.env): Promise<typeof loaded> {
  if (!tracingEnabled(env)) return undefined;
  loaded ??= await import('./tracing.js');
  return loaded;
}

/** The tracing module if {@link loadTracing} loaded it (a worker of this process traces). */
export function loadedTracing(): typeof loaded {
  return loaded;
}

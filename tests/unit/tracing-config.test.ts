/**
 * Tracing is on only with an OTLP endpoint and without OTEL_SDK_DISABLED, and a process that
 * does not trace loads nothing of OpenTelemetry (worker/tracing-config.ts).
 */
import { describe, expect, it } from 'vitest';
import { loadedTracing, loadTracing, tracingEnabled } from '../../worker/tracing-config.js';

describe('tracing is off by default', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: ' TRUE ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'false' }, true],
  ])('%j → %s', (env, on) => {
    expect(tracingEnabled(env)).toBe(on);
  });

  it('with no endpoint set, no exporter is loaded', async () => {
    expect(await loadTracing({})).toBeUndefined();
    expect(await loadTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(loadedTracing()).toBeUndefined();
  });
});

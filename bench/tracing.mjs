// `npm run bench -- --only tracing`: what tracing a run with OpenTelemetry costs (issue 52: ≤ 5%
// on a 1,000-transition loop). The loop of bench/transitions.mjs, on workers in this process,
// by turns untraced and traced (OTEL_EXPORTER_OTLP_ENDPOINT set: Temporal's interceptors, the
// traced bundle, ll-loop's spans) into a real Jaeger v2 (tests/support/jaeger.ts, built from its Go
// module into .cache/ once); every span is counted in Jaeger before the figure is given.
import { importTestSupport } from './support-bundle.mjs';
import { transitions } from './transitions.mjs';
import { dist, freePort, median, note, round, TRANSITIONS } from './context.mjs';

/** tests/support/jaeger.ts, bundled from its TypeScript for this plain Node script. */
const jaegerSupport = () => importTestSupport('tests/support/jaeger.ts', 'jaeger-support');

const TRACE_VARS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME', 'OTEL_BSP_SCHEDULE_DELAY'];

export async function tracingBench(rounds = Number(process.env.BENCH_TRACING_ROUNDS ?? 2)) {
  const { startJaeger } = await jaegerSupport();
  const jaeger = await startJaeger(
    { otlpHttp: await freePort(), query: await freePort(), queryGrpc: await freePort(), health: await freePort() },
    note,
  );
  const service = `ll-loop-bench-${process.pid}`;
  const saved = Object.fromEntries(TRACE_VARS.map((k) => [k, process.env[k]]));
  const lanes = {
    remote: { off: [], on: [], offCpu: [], onCpu: [] },
    bursts: { off: [], on: [], offCpu: [], onCpu: [] },
  };
  const { flushTracing } = await dist('worker/tracing.js');
  try {
    // Off and on by turns, so that a machine growing busier weighs on both alike.
    for (let i = 0; i < rounds; i++)
      for (const traced of [false, true]) {
        if (traced)
          Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_SERVICE_NAME: service });
        else for (const k of TRACE_VARS) delete process.env[k];
        for (const [lane, quick] of [...(process.env.BENCH_SKIP_REMOTE ? [] : [['remote', false]]), ['bursts', true]]) {
          const r = await transitions(quick, quick);
          // The spans still buffered are sent now, and their CPU is this run's: else the next run pays it.
          const before = process.cpuUsage();
          if (traced) await flushTracing();
          const flush = process.cpuUsage(before);
          r.worker_cpu_ms = round(r.worker_cpu_ms + (flush.user + flush.system) / 1000 / r.steps, 2);
          lanes[lane][traced ? 'on' : 'off'].push(r.mean_ms);
          lanes[lane][traced ? 'onCpu' : 'offCpu'].push(r.worker_cpu_ms);
          note(
            `  tracing ${traced ? 'on ' : 'off'} ${lane}: ${r.mean_ms} ms per transition (this process's CPU ${r.worker_cpu_ms} ms)`,
          );
        }
      }
    const traces = await jaeger.traces(service, 100);
    const spans = traces.reduce((n, t) => n + t.spans.length, 0);
    const of = (l) => {
      const off = median(l.off);
      const on = median(l.on);
      const offCpu = median(l.offCpu);
      const onCpu = median(l.onCpu);
      return {
        off_ms: round(off, 2),
        on_ms: round(on, 2),
        overhead_pct: round(((on - off) / off) * 100, 1),
        off_runs_ms: l.off,
        on_runs_ms: l.on,
        // The worker's own CPU per transition (its spans are made and sent there): steadier than
        // the wall time on a machine that others load.
        cpu_off_ms: round(offCpu, 2),
        cpu_on_ms: round(onCpu, 2),
        cpu_overhead_pct: round(((onCpu - offCpu) / offCpu) * 100, 1),
      };
    };
    return {
      transitions: TRANSITIONS,
      rounds,
      ...(process.env.BENCH_SKIP_REMOTE ? {} : { remote: of(lanes.remote) }),
      bursts: of(lanes.bursts),
      traces: traces.length,
      spans,
      spans_per_transition: round(
        spans / (traces.length > 0 ? rounds * (process.env.BENCH_SKIP_REMOTE ? 1 : 2) * TRANSITIONS : 1),
        2,
      ),
    };
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    await jaeger.stop();
  }
}

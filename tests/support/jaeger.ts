/**
 * A real Jaeger v2 (its OTLP receiver, in-memory store and query API) for the trace tests and the
 * bench: built from its Go module at a pinned version into `.cache/jaeger-<version>/bin` once (as
 * tests/cluster/support/temporal-server.ts builds the Temporal server), started on ports of its
 * own with a config file of its own.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The Jaeger release (its Go module's version; `cmd/jaeger` is Jaeger v2). */
const JAEGER_VERSION = process.env.LL_JAEGER_VERSION ?? '1.75.0';

const REPO = join(import.meta.dirname, '..', '..');

/**
 * `cmd/jaeger`'s module has `replace` directives, so `go install pkg@version` refuses it: it is
 * built in a module of its own that requires it as a tool (`go get -tool`).
 */
export function buildJaeger(log: (m: string) => void = () => undefined): string {
  const home = join(REPO, '.cache', `jaeger-${JAEGER_VERSION}`);
  const binary = join(home, 'bin', 'jaeger');
  if (existsSync(binary)) return binary;
  if (spawnSync('go', ['version']).status !== 0)
    throw new Error('Go is not installed. Fix: install Go (https://go.dev/dl/) to build Jaeger.');
  const mod = join(home, 'mod');
  mkdirSync(mod, { recursive: true });
  log(`building Jaeger ${JAEGER_VERSION} (a few minutes, once)`);
  const started = Date.now();
  const go = (args: string[]) => {
    const r = spawnSync('go', args, { cwd: mod, env: { ...process.env, GOFLAGS: '-mod=mod' }, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`go ${args.join(' ')} failed (${r.status})`);
  };
  if (!existsSync(join(mod, 'go.mod'))) go(['mod', 'init', 'll-loop.local/jaeger-build']);
  go(['get', '-tool', `github.com/jaegertracing/jaeger/cmd/jaeger@v${JAEGER_VERSION}`]);
  go(['build', '-o', binary, 'github.com/jaegertracing/jaeger/cmd/jaeger']);
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

export interface JaegerPorts {
  otlpHttp: number;
  query: number;
  queryGrpc: number;
  health: number;
}

function config(p: JaegerPorts): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${p.health}
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: 127.0.0.1:${p.query}
    grpc:
      endpoint: 127.0.0.1:${p.queryGrpc}
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 100000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${p.otlpHttp}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`;
}

/** One span as Jaeger's query API returns it. */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  startTime: number;
  duration: number;
  tags: { key: string; type: string; value: unknown }[];
  processID: string;
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
}

export interface Jaeger {
  /** Where an OTLP/HTTP exporter sends (OTEL_EXPORTER_OTLP_ENDPOINT). */
  otlpEndpoint: string;
  /** The query API and UI. */
  ui: string;
  /** The traces of a service (Jaeger's `/api/traces`). */
  traces(service: string, limit?: number): Promise<JaegerTrace[]>;
  stop(): Promise<void>;
}

export async function startJaeger(ports: JaegerPorts, log: (m: string) => void = () => undefined): Promise<Jaeger> {
  const binary = buildJaeger(log);
  const dir = mkdtempSync(join(tmpdir(), 'll-loop-jaeger-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, config(ports));
  const child: ChildProcess = spawn(binary, ['--config', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const ui = `http://127.0.0.1:${ports.query}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Up once its query API answers (and its receiver with it: one process, one start).
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`jaeger exited (${child.exitCode}): ${stderr}`);
    const up = await fetch(`${ui}/api/services`).then(
      (r) => r.ok,
      () => false,
    );
    const ready = await fetch(`http://127.0.0.1:${ports.health}/status`).then(
      (r) => r.ok,
      () => false,
    );
    if (up && ready) break;
    if (Date.now() > deadline) throw new Error(`jaeger did not come up in 60 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    otlpEndpoint: `http://127.0.0.1:${ports.otlpHttp}`,
    ui,
    async traces(service, limit = 1000) {
      const r = await fetch(`${ui}/api/traces?service=${encodeURIComponent(service)}&limit=${limit}&lookback=1h`);
      if (!r.ok) return [];
      return ((await r.json()) as { data: JaegerTrace[] | null }).data ?? [];
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The Temporal server of the cluster tier, built from its Go module at a pinned version (the
 * binaries cached under `.cache/`, the Go build and module caches reused across runs), its
 * PostgreSQL schemas set up with the server's own SQL tool, a config file of its own, on ports
 * of its own. The same steps a user follows without Docker (docs/temporal.md).
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection, type TLSConfig } from '@temporalio/client';

/** The server version the cluster tier runs (docs/temporal.md, "Tested server versions"). */
const TEMPORAL_SERVER_VERSION = process.env.LL_CLUSTER_TEMPORAL_VERSION ?? '1.30.1';

const REPO = join(import.meta.dirname, '..', '..', '..');

export interface TemporalBinaries {
  server: string;
  sql: string;
}

/** `go install` the server and its SQL tool into `.cache/temporal-server-<version>/bin` once. */
export function buildTemporalBinaries(log: (m: string) => void): TemporalBinaries {
  const bin = join(REPO, '.cache', `temporal-server-${TEMPORAL_SERVER_VERSION}`, 'bin');
  const binaries = { server: join(bin, 'server'), sql: join(bin, 'sql') };
  if (existsSync(binaries.server) && existsSync(binaries.sql)) return binaries;
  if (spawnSync('go', ['version']).status !== 0)
    throw new Error('Go is not installed. Fix: install Go (https://go.dev/dl/) to build the Temporal server.');
  mkdirSync(bin, { recursive: true });
  log(`building Temporal server ${TEMPORAL_SERVER_VERSION} and its SQL tool (a few minutes, once)`);
  const started = Date.now();
  const r = spawnSync(
    'go',
    [
      'install',
      `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
      `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
    ],
    { cwd: bin, env: { ...process.env, GOBIN: bin, GOFLAGS: '-mod=mod' }, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (r.status !== 0) throw new Error(`go install of Temporal server ${TEMPORAL_SERVER_VERSION} failed (${r.status})`);
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  return binaries;
}

/** The server's two databases: its own and the visibility store. */
export interface Databases {
  main: string;
  visibility: string;
}

const DATABASES: Databases = { main: 'temporal', visibility: 'temporal_visibility' };

/** The SQL tool's steps for one database: create it, version it, bring it to the latest schema. */
export function setupSchemas(sql: string, pgPort: number, dbs = DATABASES): void {
  for (const [db, schema] of [
    [dbs.main, 'postgresql/v12/temporal'],
    [dbs.visibility, 'postgresql/v12/visibility'],
  ] as const) {
    const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(pgPort), '-u', 'temporal'];
    base.push('--pw', 'temporal', '--db', db);
    for (const step of [
      ['create-database'],
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '--schema-name', schema],
    ]) {
      const r = spawnSync(sql, [...base, ...step], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`sql ${[...base, ...step].join(' ')} failed: ${r.stderr || r.stdout}`);
    }
  }
}

/** Ports of the server's four services (gRPC and membership each) and the frontend's HTTP API. */
export interface ServerPorts {
  frontend: number;
  frontendMembership: number;
  frontendHttp: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/** A development config for PostgreSQL 12+ (the server's config/development-postgres12.yaml, trimmed). */
function serverConfig(
  ports: ServerPorts,
  pgPort: number,
  dynamicConfig: string,
  opts: { dbs?: Databases; tls?: string } = {},
): string {
  const dbs = opts.dbs ?? DATABASES;
  const store = (db: string, conns: number) => `      sql:
        pluginName: "postgres12"
        databaseName: "${db}"
        connectAddr: "127.0.0.1:${pgPort}"
        connectProtocol: "tcp"
        user: "temporal"
        password: "temporal"
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: "1h"`;
  const service = (grpc: number, membership: number, http?: number) => `    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnIP: "127.0.0.1"${http ? `\n      httpPort: ${http}` : ''}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
${store(dbs.main, 20)}
    postgres-visibility:
${store(dbs.visibility, 10)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
${opts.tls ?? ''}services:
  frontend:
${service(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  matching:
${service(ports.matching, ports.matchingMembership)}
  history:
${service(ports.history, ports.historyMembership)}
  worker:
${service(ports.worker, ports.workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${ports.frontend}"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: "${dynamicConfig}"
  pollInterval: "10s"
`;
}

/**
 * Dynamic config: ids as long as the dev server allows (ll-loop's run ids can be long), and the
 * two settings an operator sets for speed (docs/temporal.md, "What an operator sets for speed"),
 * the embedded server's own (temporal/dev-server-flags.ts): timers fire within 10 ms instead of up
 * to 1 s late, and each shard reads its new tasks up to 1,000 times a second instead of 20
 * (a transition with a remote activity: 96 ms → 46 ms on this tier's server, the dev server 37–40 ms).
 * `docker-compose.temporal.yml` sets the same.
 */
export const DYNAMIC_CONFIG = `limit.maxIDLength:
  - value: 255
    constraints: {}
history.timerProcessorMaxTimeShift:
  - value: 10ms
    constraints: {}
history.transferProcessorMaxPollRPS:
  - value: 1000
    constraints: {}
`;

/** Write the config and dynamic config files into `dir`; returns the config file's path. */
export function writeServerConfig(
  dir: string,
  ports: ServerPorts,
  pgPort: number,
  opts: { dbs?: Databases; tls?: string; name?: string } = {},
): string {
  const dynamic = join(dir, 'dynamicconfig.yaml');
  writeFileSync(dynamic, DYNAMIC_CONFIG);
  const config = join(dir, opts.name ?? 'temporal.yaml');
  writeFileSync(config, serverConfig(ports, pgPort, dynamic, opts));
  return config;
}

/** Start the server detached (its own process group), output appended to `logFile`; returns its pid. */
export function spawnServer(server: string, configFile: string, logFile: string): number {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(server, ['--config-file', configFile, '--allow-no-auth', 'start'], {
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${server}`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/**
 * Wait until the frontend answers and lists namespaces (its persistence is reachable); gives up
 * early when `running` says the server's process is gone.
 */
export async function waitForServer(
  address: string,
  timeoutMs = 90_000,
  tls?: TLSConfig,
  running: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    if (!running()) throw new Error(`Temporal server on ${address} exited before it answered: ${last}`);
    const connection = Connection.lazy({ address, connectTimeout: '2s', ...(tls ? { tls } : {}) });
    try {
      await connection.withDeadline(Date.now() + 3_000, () =>
        connection.workflowService.listNamespaces({ pageSize: 1 }),
      );
      return;
    } catch (err) {
      last = (err as Error).message;
    } finally {
      await connection.close().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error(`Temporal server on ${address} not ready: ${last}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

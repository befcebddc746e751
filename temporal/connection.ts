/**
 * Which Temporal server ll-loop talks to, and connecting to it without hanging.
 *
 * `TEMPORAL_ADDRESS` set → an external server (shared cluster, Temporal Cloud),
 * configured with the Temporal SDK/CLI environment variables. Unset → the
 * embedded dev server ({@link ensureDevServer}).
 *
 * Every connect helper fails within a few seconds with
 * {@link TemporalUnavailableError} instead of waiting on an unreachable server.
 */
import { readFileSync } from 'node:fs';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { ensureDevServer, type DevServerOptions } from './dev-server.js';
import { diagnoseTls } from './tls-diagnosis.js';

/** TLS settings from the environment; files are read at connect time, keeping resolution pure. */
export interface TemporalTlsSpec {
  /** PEM client certificate file (mTLS). */
  clientCertPath?: string;
  /** PEM client private key file (mTLS). */
  clientKeyPath?: string;
  /** PEM CA certificate file for a server cert the OS does not trust. */
  serverCaPath?: string;
  /** SNI / host name override. */
  serverName?: string;
}

/** An external server, from `TEMPORAL_ADDRESS` and friends. */
interface ExternalTemporalTarget {
  mode: 'external';
  address: string;
  namespace: string;
  /** false: plaintext; true: TLS with system roots; object: TLS with these settings. */
  tls: boolean | TemporalTlsSpec;
  apiKey?: string;
}

/** The embedded dev server ll-loop manages itself. */
interface EmbeddedTemporalTarget {
  mode: 'embedded';
}

/** Where ll-loop's Temporal server is. */
export type TemporalTarget = ExternalTemporalTarget | EmbeddedTemporalTarget;

/** Everything needed to open a connection: an external target, or a running embedded server. */
export interface TemporalEndpoint {
  address: string;
  namespace: string;
  tls?: boolean | TemporalTlsSpec;
  apiKey?: string;
  /** Only tailors the fix suggested by {@link TemporalUnavailableError}. */
  mode?: 'external' | 'embedded';
}

/** The Temporal connection settings in the environment are inconsistent. */
class TemporalConfigError extends Error {
  override readonly name = 'TemporalConfigError';
}

/** The Temporal server could not be reached in time. */
export class TemporalUnavailableError extends Error {
  override readonly name = 'TemporalUnavailableError';
  constructor(
    readonly address: string,
    cause: unknown,
    mode: 'external' | 'embedded' = 'external',
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    const fix =
      mode === 'embedded'
        ? 'The embedded server may have stopped: run the command again to restart it, and see .loops/.temporal/server.log if it fails.'
        : `Start it with \`temporal server start-dev\` or \`docker compose -f docker-compose.temporal.yml up -d\`, ` +
          'check TEMPORAL_ADDRESS / TLS settings, or unset TEMPORAL_ADDRESS to use the embedded server.';
    super(`cannot reach Temporal at ${address}: ${why}. ${fix}`, { cause });
  }
}

/** The TLS handshake with the server fails: the server's certificate, or ours, is refused. */
class TemporalTlsError extends Error {
  override readonly name = 'TemporalTlsError';
  constructor(
    message: string,
    readonly fix: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

const TRUE = /^(1|true|yes|on)$/i;
const FALSE = /^(0|false|no|off)$/i;

/**
 * Decide which server to use from the environment (pure: reads no files).
 *
 * External mode variables: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE` (default
 * "default"), `TEMPORAL_API_KEY` (implies TLS), `TEMPORAL_TLS` (true/false),
 * `TEMPORAL_TLS_CERT` + `TEMPORAL_TLS_KEY` (mTLS file paths; also accepted as
 * `TEMPORAL_TLS_CLIENT_CERT_PATH` / `TEMPORAL_TLS_CLIENT_KEY_PATH`),
 * `TEMPORAL_TLS_CA` (or `TEMPORAL_TLS_SERVER_CA_CERT_PATH`), `TEMPORAL_TLS_SERVER_NAME`.
 *
 * @throws TemporalConfigError for a cert without a key (or vice versa), or an unparsable TEMPORAL_TLS
 */
export function resolveTemporalTarget(env: NodeJS.ProcessEnv = process.env): TemporalTarget {
  const address = env.TEMPORAL_ADDRESS?.trim();
  if (!address) return { mode: 'embedded' };

  const pick = (...names: string[]): string | undefined => names.map((n) => env[n]?.trim()).find((v) => !!v);
  const spec: TemporalTlsSpec = {};
  const cert = pick('TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_CLIENT_CERT_PATH');
  const key = pick('TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_CLIENT_KEY_PATH');
  const ca = pick('TEMPORAL_TLS_CA', 'TEMPORAL_TLS_SERVER_CA_CERT_PATH');
  const serverName = pick('TEMPORAL_TLS_SERVER_NAME');
  if (cert) spec.clientCertPath = cert;
  if (key) spec.clientKeyPath = key;
  if (ca) spec.serverCaPath = ca;
  if (serverName) spec.serverName = serverName;
  if (!!cert !== !!key) {
    throw new TemporalConfigError(
      `TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together for mTLS to ${address}, but only ${cert ? 'the cert' : 'the key'} is set. ` +
        'Fix: set both to PEM file paths, or neither.',
    );
  }
  const apiKey = pick('TEMPORAL_API_KEY');
  const tlsFlag = pick('TEMPORAL_TLS');
  if (tlsFlag && !TRUE.test(tlsFlag) && !FALSE.test(tlsFlag)) {
    throw new TemporalConfigError(`TEMPORAL_TLS=${tlsFlag} is not a boolean. Fix: set it to true or false.`);
  }
  const hasSpec = Object.keys(spec).length > 0;
  // Explicit TEMPORAL_TLS wins; otherwise any TLS setting or an API key (Cloud) turns TLS on.
  const enabled = tlsFlag ? TRUE.test(tlsFlag) : hasSpec || !!apiKey;
  const tls: boolean | TemporalTlsSpec = enabled && hasSpec ? spec : enabled;

  return {
    mode: 'external',
    address,
    namespace: pick('TEMPORAL_NAMESPACE') ?? 'default',
    tls,
    ...(apiKey ? { apiKey } : {}),
  };
}

/**
 * Turn a target into a reachable endpoint: external targets as they are, the
 * embedded one by reusing or starting the dev server in `dataDir`.
 */
export async function resolveEndpoint(
  target: TemporalTarget,
  opts: {
    dataDir: string;
    port?: number;
    uiPort?: number;
    log?: (msg: string) => void;
    keepConnection?: boolean;
    onForeignServer?: DevServerOptions['onForeignServer'];
  },
): Promise<TemporalEndpoint & { uiUrl?: string; connection?: Connection; started?: boolean; foreign?: boolean }> {
  if (target.mode === 'external') return target;
  const server = await ensureDevServer(opts);
  // With keepConnection: the connection that checked an embedded server already running (the
  // caller owns it; see clientFor). `started`: this call (re)started the server, whose workers
  // have yet to reconnect; `foreign`: the server on the port is not this project's.
  return {
    mode: 'embedded',
    address: server.address,
    namespace: 'default',
    uiUrl: server.uiUrl,
    ...(server.started ? { started: true } : {}),
    ...(server.foreign ? { foreign: true } : {}),
    ...(server.connection ? { connection: server.connection } : {}),
  };
}

/**
 * A client on the connection {@link resolveEndpoint} handed over (`keepConnection`), else on a
 * new one ({@link connectClient}).
 */
export async function clientFor(
  endpoint: TemporalEndpoint & { connection?: Connection },
  opts: ConnectOptions = {},
): Promise<{ connection: Connection; client: Client }> {
  if (!endpoint.connection) return connectClient(endpoint, opts);
  return {
    connection: endpoint.connection,
    client: new Client({ connection: endpoint.connection, namespace: endpoint.namespace }),
  };
}

/** Read the TLS files named in a spec into the SDK's TLS config. */
export function loadTlsConfig(tls: boolean | TemporalTlsSpec | undefined): TLSConfig | boolean {
  if (tls === undefined || typeof tls === 'boolean') return tls ?? false;
  const read = (path: string, what: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new TemporalConfigError(
        `Cannot read the TLS ${what} file ${path}: ${(err as Error).message}. Fix: point the TEMPORAL_TLS_* variable at a readable PEM file.`,
      );
    }
  };
  const config: TLSConfig = {};
  if (tls.serverName) config.serverNameOverride = tls.serverName;
  if (tls.serverCaPath) config.serverRootCACertificate = read(tls.serverCaPath, 'CA certificate');
  if (tls.clientCertPath && tls.clientKeyPath) {
    config.clientCertPair = {
      crt: read(tls.clientCertPath, 'client certificate'),
      key: read(tls.clientKeyPath, 'client key'),
    };
  }
  return config;
}

/** Options for the connect helpers. */
export interface ConnectOptions {
  /** Give up after this long (default 5000 ms). */
  timeoutMs?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/**
 * The longest a connection waits between attempts to reconnect to a server that went away. gRPC's
 * default grows to 120 s, so a long-lived client (`ll-loop ui`, a follower) kept failing for a
 * minute after the server was back (measured: 62–68 s after a 100 s outage); an attempt is one
 * TCP connect, cheap for a local server and a cluster alike.
 */
const RECONNECT_BACKOFF_MAX_MS = 2_000;

/**
 * Open a client connection (verified with GetSystemInfo) and a Client bound
 * to the endpoint's namespace.
 *
 * @throws TemporalUnavailableError when the server does not answer in time
 */
export async function connectClient(
  endpoint: TemporalEndpoint,
  opts: ConnectOptions = {},
): Promise<{ connection: Connection; client: Client }> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  // lazy + ensureConnected rather than connect(): on failure we still hold the
  // connection and can close its channel instead of leaking it.
  const connection = Connection.lazy({
    address: endpoint.address,
    tls: loadTlsConfig(endpoint.tls),
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    connectTimeout: timeoutMs,
    channelArgs: { 'grpc.max_reconnect_backoff_ms': RECONNECT_BACKOFF_MAX_MS },
  });
  try {
    await connection.ensureConnected();
  } catch (err) {
    await connection.close().catch(() => {});
    // gRPC says only "Failed to connect before the deadline"; a TLS failure is told with its fix.
    const tls = endpoint.tls ? loadTlsConfig(endpoint.tls) : false;
    const diagnosis = tls ? await diagnoseTls(endpoint.address, tls === true ? {} : tls) : undefined;
    if (diagnosis) throw new TemporalTlsError(diagnosis.message, diagnosis.fix, { cause: err });
    throw new TemporalUnavailableError(endpoint.address, err, endpoint.mode);
  }
  return { connection, client: new Client({ connection, namespace: endpoint.namespace }) };
}

/**
 * The worker's native (Rust core) connection, apart from the client's (connection.ts): only the
 * processes that host a worker load the worker SDK (in the CLI bundle, its own chunks).
 */
import type { NativeConnection } from '@temporalio/worker';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  loadTlsConfig,
  TemporalUnavailableError,
  type ConnectOptions,
  type TemporalEndpoint,
} from './connection.js';

/**
 * Open the worker's native (Rust core) connection.
 *
 * NativeConnection.connect has no timeout option, so it races a timer; a
 * connection that completes after we gave up is closed, not leaked.
 *
 * @throws TemporalUnavailableError when the server does not answer in time
 */
export async function connectWorkerConnection(
  endpoint: TemporalEndpoint,
  opts: ConnectOptions = {},
): Promise<NativeConnection> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  // `.default`, the package's module.exports: the SDK is CommonJS, and a bundle's dynamic import of
  // CommonJS (tools/bundle-cli.mjs) gives only that, where Node's own also gives named exports.
  const { NativeConnection } = (await import('@temporalio/worker')).default;
  const pending = NativeConnection.connect({
    address: endpoint.address,
    tls: loadTlsConfig(endpoint.tls),
    ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([pending, timeout]);
  } catch (err) {
    pending.then((c) => c.close()).catch(() => {});
    throw new TemporalUnavailableError(endpoint.address, err, endpoint.mode);
  } finally {
    clearTimeout(timer);
  }
}

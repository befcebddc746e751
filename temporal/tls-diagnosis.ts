/**
 * Why a TLS connection to the frontend fails, in one line with the fix. gRPC reports every TLS
 * failure as "Failed to connect before the deadline"; this makes the same TLS handshake with the
 * same files (node:tls, ALPN h2 as gRPC) and then the HTTP/2 preface, and reads the answer:
 *
 * - the handshake refuses the server's certificate → the CA (TEMPORAL_TLS_CA) or the name
 *   (TEMPORAL_TLS_SERVER_NAME) is wrong;
 * - the server answers the preface with an alert, or closes → it refused the client certificate
 *   (TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY), or wanted one;
 * - not TLS at all → the server speaks plaintext (TEMPORAL_TLS=false);
 * - the server's HTTP/2 settings arrive → TLS is fine: undefined, the failure is elsewhere.
 */
import { isIP } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';
import type { TLSConfig } from '@temporalio/client';

export interface TlsDiagnosis {
  message: string;
  fix: string;
}

/** HTTP/2 client connection preface and an empty SETTINGS frame (RFC 9113 §3.4). */
const H2_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
]);

const SERVER_UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

function serverUntrusted(address: string, why: string): TlsDiagnosis {
  return {
    message: `the TLS certificate of Temporal at ${address} is not trusted (${why})`,
    fix: 'set TEMPORAL_TLS_CA to the PEM file of the CA that signed the server certificate (and TEMPORAL_TLS_SERVER_NAME to a name in it, if the address is not)',
  };
}

function clientRefused(address: string, why: string): TlsDiagnosis {
  return {
    message: `Temporal at ${address} refused ll-loop's TLS client certificate (${why})`,
    fix: 'set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY to a client certificate and key signed by a CA the server accepts (its clientCaFiles)',
  };
}

/** OpenSSL's reason without its location: `…:SSL routines:ssl3_read_bytes:tlsv1 alert unknown ca:…` → `tlsv1 alert unknown ca`. */
function reasonOf(err: Error): string {
  return /SSL routines:[^:]*:([^:]+)/.exec(err.message)?.[1]?.trim() ?? err.message;
}

/** Classify a handshake or post-handshake error. */
function classify(address: string, err: NodeJS.ErrnoException, handshaken: boolean): TlsDiagnosis | undefined {
  const code = err.code ?? '';
  const text = `${code} ${err.message}`;
  err.message = reasonOf(err);
  if (SERVER_UNTRUSTED.has(code) || code === 'CERT_HAS_EXPIRED') return serverUntrusted(address, err.message);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return serverUntrusted(address, err.message);
  if (/wrong version number|packet length too long|unexpected eof/i.test(text) && !handshaken)
    return {
      message: `Temporal at ${address} does not speak TLS (${err.message})`,
      fix: 'set TEMPORAL_TLS=false (and unset the TEMPORAL_TLS_* files), or point TEMPORAL_ADDRESS at the TLS port',
    };
  if (/alert|certificate required|bad certificate|unknown ca/i.test(text) || handshaken)
    return clientRefused(address, err.message);
  return undefined;
}

/**
 * The TLS reason `address` cannot be reached with `config`, or undefined when TLS is not the
 * reason (or the server does not answer within `timeoutMs`).
 */
export function diagnoseTls(address: string, config: TLSConfig, timeoutMs = 3_000): Promise<TlsDiagnosis | undefined> {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(at + 1));
  const servername = config.serverNameOverride ?? (isIP(host) ? undefined : host);
  const options: ConnectionOptions = {
    host,
    port,
    ALPNProtocols: ['h2'],
    ...(servername ? { servername } : {}),
    ...(config.serverRootCACertificate ? { ca: Buffer.from(config.serverRootCACertificate) } : {}),
    ...(config.clientCertPair
      ? { cert: Buffer.from(config.clientCertPair.crt), key: Buffer.from(config.clientCertPair.key) }
      : {}),
  };
  return new Promise((resolve) => {
    let handshaken = false;
    const socket = connect(options);
    const done = (d: TlsDiagnosis | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(d);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.once('secureConnect', () => {
      handshaken = true;
      socket.write(H2_PREFACE);
    });
    socket.once('data', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(classify(address, err, handshaken)));
    socket.once('close', () =>
      done(handshaken ? clientRefused(address, 'the server closed the connection') : undefined),
    );
  });
}

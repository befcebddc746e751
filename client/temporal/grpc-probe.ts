/**
 * Whether a Temporal frontend answers on an address, without the Temporal SDK: one gRPC call
 * (`WorkflowService/GetSystemInfo`, an empty request) over Node's own HTTP/2. `server status`,
 * `worker status` and the wait for a starting server ask only this; loading the SDK's client and
 * its protobuf descriptors for it cost each of those commands about 0.4 s of CPU.
 *
 * gRPC over HTTP/2, as far as this needs it: a POST to `/<service>/<method>` with
 * `content-type: application/grpc` and `te: trailers`, the body one length-prefixed message (a
 * 0 flag byte, a 4-byte big-endian length, the bytes: none for an empty request); the answer's
 * `grpc-status` comes in the trailers, or in the headers of a trailers-only answer. 0 is OK.
 */
import { connect as http2Connect, constants as http2 } from 'node:http2';
import { connect as netConnect } from 'node:net';

/** Result of {@link probeTemporal}. */
export type TemporalProbe = { kind: 'temporal' } | { kind: 'closed' } | { kind: 'other'; reason: string };

const GET_SYSTEM_INFO = '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo';
/** An empty protobuf message, length-prefixed as gRPC frames it. */
const EMPTY_MESSAGE = Buffer.from([0, 0, 0, 0, 0]);
const PROBE_BUDGET_MS = 2_000;

/**
 * Whether a Temporal frontend answers on `address` (host:port).
 *
 * A plain TCP connect first: a refused port answers in microseconds. Only an open port gets the
 * gRPC `GetSystemInfo` call (2 s budget); a port held by something else (an HTTP/1 server, a gRPC
 * server without Temporal's service) is `other`, with what it answered.
 */
export async function probeTemporal(address: string): Promise<TemporalProbe> {
  if (!(await tcpOpen(address, 1_000))) return { kind: 'closed' };
  const status = await grpcCall(address, GET_SYSTEM_INFO, PROBE_BUDGET_MS);
  return status === '0' ? { kind: 'temporal' } : { kind: 'other', reason: status };
}

/**
 * One unary gRPC call with an empty request: its `grpc-status` ("0" is OK), or why there was none
 * (as text).
 */
function grpcCall(address: string, path: string, budgetMs: number): Promise<string> {
  return new Promise((resolve) => {
    let settled = false;
    const session = http2Connect(`http://${bracketed(address)}`);
    const finish = (outcome: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish(`no gRPC answer within ${budgetMs / 1000} s`), budgetMs);
    session.on('error', (err) => finish(`not a gRPC server (${err.message})`));
    const request = session.request({
      [http2.HTTP2_HEADER_METHOD]: 'POST',
      [http2.HTTP2_HEADER_PATH]: path,
      [http2.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      te: 'trailers',
    });
    const statusOf = (headers: Record<string, unknown>): string | undefined => {
      const status = headers['grpc-status'];
      if (status === undefined) return undefined;
      const message = headers['grpc-message'];
      return String(status) === '0'
        ? '0'
        : `gRPC status ${String(status)}${message ? `: ${decodeURIComponent(String(message))}` : ''}`;
    };
    request.on('response', (headers) => {
      const httpStatus = headers[http2.HTTP2_HEADER_STATUS];
      if (Number(httpStatus) !== 200) return finish(`HTTP ${String(httpStatus)}, not gRPC`);
      const trailersOnly = statusOf(headers);
      if (trailersOnly !== undefined) finish(trailersOnly);
    });
    request.on('trailers', (trailers) => finish(statusOf(trailers) ?? 'a gRPC answer without a status'));
    request.on('data', () => {}); // the SystemInfo message itself is not needed
    request.on('end', () => finish('a gRPC answer without a status'));
    request.on('error', (err) => finish(`not a gRPC server (${err.message})`));
    request.end(EMPTY_MESSAGE);
  });
}

/** `host:port` with an IPv6 host in brackets, as a URL needs it. */
function bracketed(address: string): string {
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i);
  return host.includes(':') && !host.startsWith('[') ? `[${host}]${address.slice(i)}` : address;
}

/** Whether a TCP connection to `address` (host:port) opens within `timeoutMs`: cheap, no gRPC. */
export function tcpOpen(address: string, timeoutMs: number): Promise<boolean> {
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(i + 1));
  return new Promise((resolve) => {
    const socket = netConnect({ host, port });
    const done = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

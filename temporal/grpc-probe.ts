/**
 * Whether a Temporal frontend answers on an address, without the Temporal SDK: one gRPC call
 * (`WorkflowService/GetSystemInfo`, an empty request) over Node's own HTTP/2 (grpc-unary.ts).
 * `server status`, `worker status` and the wait for a starting server ask only this; loading the
 * SDK's client and its protobuf descriptors for it cost each of those commands about 0.4 s of CPU.
 */
import { connect as netConnect } from 'node:net';
import { grpcUnary } from './grpc-unary.js';

/** Result of {@link probeTemporal}. */
export type TemporalProbe = { kind: 'temporal' } | { kind: 'closed' } | { kind: 'other'; reason: string };

const GET_SYSTEM_INFO = '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo';
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
  // The SystemInfo message itself is not needed: an OK answer to it is Temporal.
  const answer = await grpcUnary(address, GET_SYSTEM_INFO, new Uint8Array(0), PROBE_BUDGET_MS);
  if (answer.kind === 'failed') return { kind: 'other', reason: answer.reason };
  if (answer.status === 0) return { kind: 'temporal' };
  return { kind: 'other', reason: `gRPC status ${answer.status}${answer.message ? `: ${answer.message}` : ''}` };
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

/**
 * One unary gRPC call over Node's own HTTP/2, without the Temporal SDK: for the few calls a
 * command makes to the embedded dev server on 127.0.0.1 (the probe, the namespace's search
 * attributes and home), where loading the SDK's client and its protobuf descriptors cost each
 * command about 0.4–0.5 s of CPU. Plaintext only: a server with TLS or an API key is reached
 * through the SDK.
 *
 * gRPC over HTTP/2, as far as this needs it: a POST to `/<service>/<method>` with
 * `content-type: application/grpc` and `te: trailers`; the request and the answer are each one
 * length-prefixed message (a 0 flag byte, a 4-byte big-endian length, the bytes); the answer's
 * `grpc-status` comes in the trailers, or in the headers of a trailers-only answer. 0 is OK.
 */
import { connect as http2Connect, constants as http2 } from 'node:http2';

/** What a call came to: the server's gRPC status and message, or why there was none. */
export type UnaryOutcome =
  { kind: 'answered'; status: number; message: string; body: Buffer } | { kind: 'failed'; reason: string };

/** `path`: `/<package>.<Service>/<Method>`; `request`: the encoded request message. */
export function grpcUnary(address: string, path: string, request: Uint8Array, budgetMs: number): Promise<UnaryOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    const session = http2Connect(`http://${bracketed(address)}`);
    const finish = (outcome: UnaryOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ kind: 'failed', reason: `no gRPC answer within ${budgetMs / 1000} s` }),
      budgetMs,
    );
    session.on('error', (err) => finish({ kind: 'failed', reason: `not a gRPC server (${err.message})` }));
    const call = session.request({
      [http2.HTTP2_HEADER_METHOD]: 'POST',
      [http2.HTTP2_HEADER_PATH]: path,
      [http2.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      te: 'trailers',
    });
    const answered = (headers: Record<string, unknown>): UnaryOutcome | undefined => {
      const status = headers['grpc-status'];
      if (status === undefined) return undefined;
      const message = headers['grpc-message'];
      return {
        kind: 'answered',
        status: Number(status),
        message: message === undefined ? '' : decodeURIComponent(String(message)),
        body: unframe(Buffer.concat(chunks)),
      };
    };
    call.on('response', (headers) => {
      const httpStatus = headers[http2.HTTP2_HEADER_STATUS];
      if (Number(httpStatus) !== 200) return finish({ kind: 'failed', reason: `HTTP ${String(httpStatus)}, not gRPC` });
      const trailersOnly = answered(headers);
      if (trailersOnly !== undefined) finish(trailersOnly);
    });
    call.on('data', (chunk: Buffer) => chunks.push(chunk));
    call.on('trailers', (trailers) =>
      finish(answered(trailers) ?? { kind: 'failed', reason: 'a gRPC answer without a status' }),
    );
    call.on('end', () => finish({ kind: 'failed', reason: 'a gRPC answer without a status' }));
    call.on('error', (err) => finish({ kind: 'failed', reason: `not a gRPC server (${err.message})` }));
    call.end(frame(request));
  });
}

/** The message as gRPC frames it: uncompressed, its length before it. */
function frame(message: Uint8Array): Buffer {
  const framed = Buffer.alloc(5 + message.length);
  framed.writeUInt32BE(message.length, 1);
  framed.set(message, 5);
  return framed;
}

/** The one message of a unary answer (empty when there was none). */
function unframe(data: Buffer): Buffer {
  if (data.length < 5) return Buffer.alloc(0);
  return data.subarray(5, 5 + data.readUInt32BE(1));
}

/** `host:port` with an IPv6 host in brackets, as a URL needs it. */
function bracketed(address: string): string {
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i);
  return host.includes(':') && !host.startsWith('[') ? `[${host}]${address.slice(i)}` : address;
}

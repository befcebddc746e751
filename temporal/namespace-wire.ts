/**
 * {@link NamespaceAdmin} for the embedded dev server without the Temporal SDK: each call one
 * unary gRPC call (grpc-unary.ts), its messages encoded and decoded with protobufjs's minimal
 * reader and writer by the field numbers of Temporal's API (temporal/api/operatorservice/v1 and
 * workflowservice/v1 request_response.proto, namespace/v1/message.proto). Only the fields ll-loop
 * sets or reads; everything else in an answer is skipped. tests/unit/namespace-wire.test.ts checks
 * the encodings against the SDK's own generated messages.
 */
import protobuf from 'protobufjs/minimal.js';
import { grpcUnary } from './grpc-unary.js';
import type { NamespaceAdmin } from './namespace-admin.js';

const { Reader, Writer } = protobuf;

const OPERATOR = '/temporal.api.operatorservice.v1.OperatorService';
const WORKFLOW = '/temporal.api.workflowservice.v1.WorkflowService';
const CALL_BUDGET_MS = 10_000;

/** Protobuf wire types. */
const VARINT = 0;
const LENGTH_DELIMITED = 2;

const tag = (field: number, wireType: number): number => (field << 3) | wireType;

/** A gRPC status other than OK, as the SDK's errors carry it (`code`, `details`). */
export class GrpcCallError extends Error {
  override readonly name = 'GrpcCallError';
  constructor(
    readonly code: number,
    readonly details: string,
    method: string,
  ) {
    super(`${method}: gRPC status ${code}${details ? `: ${details}` : ''}`);
  }
}

/** The namespace calls to the server on `address` (host:port, plaintext). */
export function wireAdmin(address: string): NamespaceAdmin {
  const call = async (path: string, request: Uint8Array): Promise<Buffer> => {
    const answer = await grpcUnary(address, path, request, CALL_BUDGET_MS);
    if (answer.kind === 'failed') throw new Error(`${path} on ${address}: ${answer.reason}`);
    if (answer.status !== 0) throw new GrpcCallError(answer.status, answer.message, path);
    return answer.body;
  };
  return {
    async customSearchAttributes(namespace) {
      // ListSearchAttributesRequest { namespace = 1 } → { custom_attributes = 1: map<string, enum> }
      const body = await call(`${OPERATOR}/ListSearchAttributes`, putString(Writer.create(), 1, namespace).finish());
      return readMap(body, 1, (r) => r.int32(), 0);
    },
    async addSearchAttributes(namespace, attributes) {
      // AddSearchAttributesRequest { search_attributes = 1: map<string, enum>, namespace = 2 }
      const w = Writer.create();
      for (const [name, kind] of Object.entries(attributes))
        putEntry(w, 1, name, (e) => e.uint32(tag(2, VARINT)).int32(kind));
      await call(`${OPERATOR}/AddSearchAttributes`, putString(w, 2, namespace).finish());
    },
    async namespaceData(namespace) {
      // DescribeNamespaceRequest { namespace = 1 } →
      //   { namespace_info = 1: NamespaceInfo { data = 5: map<string, string> } }
      const body = await call(`${WORKFLOW}/DescribeNamespace`, putString(Writer.create(), 1, namespace).finish());
      return Object.assign({}, ...readMessages(body, 1).map((info) => readMap(info, 5, (r) => r.string(), '')));
    },
    async updateNamespaceData(namespace, data) {
      // UpdateNamespaceRequest { namespace = 1, update_info = 2: UpdateNamespaceInfo { data = 3: map<string, string> } }
      const w = putString(Writer.create(), 1, namespace).uint32(tag(2, LENGTH_DELIMITED)).fork();
      for (const [key, value] of Object.entries(data)) putEntry(w, 3, key, (e) => putString(e, 2, value));
      await call(`${WORKFLOW}/UpdateNamespace`, w.ldelim().finish());
    },
  };
}

/** Field `field` of the message being written: the string `value`. */
function putString(w: protobuf.Writer, field: number, value: string): protobuf.Writer {
  return w.uint32(tag(field, LENGTH_DELIMITED)).string(value);
}

/** One entry of the map field `field`: its key (field 1), its value written by `putValue` (field 2). */
function putEntry(
  w: protobuf.Writer,
  field: number,
  key: string,
  putValue: (e: protobuf.Writer) => protobuf.Writer,
): void {
  putValue(putString(w.uint32(tag(field, LENGTH_DELIMITED)).fork(), 1, key)).ldelim();
}

/** Every occurrence of message field `field` of `body`, as bytes (proto3: several merge into one). */
function readMessages(body: Uint8Array, field: number): Uint8Array[] {
  const found: Uint8Array[] = [];
  const r = Reader.create(body);
  while (r.pos < r.len) {
    const t = r.uint32();
    if (t === tag(field, LENGTH_DELIMITED)) found.push(r.bytes());
    else r.skipType(t & 7);
  }
  return found;
}

/** The map field `field` of `body` (entries: key = 1, a string; value = 2, read by `value`). */
function readMap<V>(body: Uint8Array, field: number, value: (r: protobuf.Reader) => V, absent: V): Record<string, V> {
  const map: Record<string, V> = {};
  for (const entry of readMessages(body, field)) {
    const r = Reader.create(entry);
    let key = '';
    let val: V | undefined;
    while (r.pos < r.len) {
      const t = r.uint32();
      if (t === tag(1, LENGTH_DELIMITED)) key = r.string();
      else if (t >>> 3 === 2) val = value(r);
      else r.skipType(t & 7);
    }
    // A map entry without its value has its type's default (`absent`: 0 or "").
    map[key] = val ?? absent;
  }
  return map;
}

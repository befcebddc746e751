/**
 * The search attribute types ll-loop writes out as numbers (temporal/search-attributes.ts,
 * so that the namespace calls without the SDK load no protobuf descriptors) are the SDK's own
 * `IndexedValueType` values, and a conflict names the type the server has as the proto does.
 * The calls themselves against a real server: tests/integration/dev-server.test.ts.
 */
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import type { NamespaceAdmin } from '../../temporal/namespace-admin.js';
import {
  INDEXED_VALUE_TYPE,
  SEARCH_ATTRIBUTES,
  SearchAttributeConflictError,
  ensureSearchAttributes,
} from '../../temporal/search-attributes.js';

const { IndexedValueType } = proto.temporal.api.enums.v1;

/** A namespace held in memory: what the calls read and write. */
function memoryAdmin(custom: Record<string, number>): NamespaceAdmin & { added: Record<string, number>[] } {
  const added: Record<string, number>[] = [];
  return {
    added,
    customSearchAttributes: () => Promise.resolve({ ...custom }),
    addSearchAttributes: (_ns, attributes) => {
      added.push(attributes);
      Object.assign(custom, attributes);
      return Promise.resolve();
    },
    namespaceData: () => Promise.resolve({}),
    updateNamespaceData: () => Promise.resolve(),
  };
}

describe('search attribute types without the protobuf descriptors', () => {
  it('are the SDK enum values, type for type', () => {
    for (const [kind, n] of Object.entries(INDEXED_VALUE_TYPE)) {
      const protoName = `INDEXED_VALUE_TYPE_${kind.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
      expect(IndexedValueType[n], kind).toBe(protoName);
    }
    expect(new Set(Object.values(INDEXED_VALUE_TYPE)).size).toBe(Object.keys(INDEXED_VALUE_TYPE).length);
  });

  it('adds what is missing with those numbers, and names a conflicting type as the proto does', async () => {
    const admin = memoryAdmin({ LoopName: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD });
    const added = await ensureSearchAttributes(admin, 'ns');
    expect(added.sort()).toEqual(
      Object.keys(SEARCH_ATTRIBUTES)
        .filter((n) => n !== 'LoopName')
        .sort(),
    );
    for (const name of added) expect(admin.added[0]![name]).toBe(IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    expect(await ensureSearchAttributes(admin, 'ns')).toEqual([]);

    const conflict = memoryAdmin({ LoopState: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST });
    const err = await ensureSearchAttributes(conflict, 'ns').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchAttributeConflictError);
    expect((err as Error).message).toContain('has type INDEXED_VALUE_TYPE_KEYWORD_LIST');
  });
});

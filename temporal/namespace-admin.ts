/**
 * The four namespace calls ll-loop makes when it starts or reuses a server: its custom search
 * attributes (list, add) and its `data` map (read, update), where the embedded server's home is
 * recorded (server-home.ts). Two ways to make them, one answer:
 * - {@link sdkAdmin}: through the SDK's connection, for any server (TLS, API keys, a cluster);
 * - {@link wireAdmin} (namespace-wire.ts): the embedded dev server on 127.0.0.1, over plain
 *   HTTP/2 without loading the SDK, for `ll-loop server start` and a run's first start.
 */
import type { Connection } from '@temporalio/client';

/** A search attribute's type as the server numbers it (proto `IndexedValueType`). */
export type IndexedValueTypeNumber = number;

export interface NamespaceAdmin {
  /** The namespace's custom search attributes: name → type. */
  customSearchAttributes(namespace: string): Promise<Record<string, IndexedValueTypeNumber>>;
  addSearchAttributes(namespace: string, attributes: Record<string, IndexedValueTypeNumber>): Promise<void>;
  /** The namespace's `data` map. */
  namespaceData(namespace: string): Promise<Record<string, string>>;
  /** Set these keys of the namespace's `data` map (the server keeps the others). */
  updateNamespaceData(namespace: string, data: Record<string, string>): Promise<void>;
}

/** The calls through an SDK connection. */
export function sdkAdmin(connection: Connection): NamespaceAdmin {
  return {
    async customSearchAttributes(namespace) {
      const listed = await connection.operatorService.listSearchAttributes({ namespace });
      const custom: Record<string, number> = {};
      for (const [name, kind] of Object.entries(listed.customAttributes ?? {})) if (kind != null) custom[name] = kind;
      return custom;
    },
    async addSearchAttributes(namespace, attributes) {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: attributes });
    },
    async namespaceData(namespace) {
      const described = await connection.workflowService.describeNamespace({ namespace });
      return { ...(described.namespaceInfo?.data ?? {}) };
    },
    async updateNamespaceData(namespace, data) {
      await connection.workflowService.updateNamespace({ namespace, updateInfo: { data } });
    },
  };
}

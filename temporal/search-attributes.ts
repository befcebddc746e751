/**
 * The custom search attributes ll-loop writes on every loop workflow, and the
 * code that makes sure a Temporal namespace has them registered.
 *
 * Invariant: every server ll-loop talks to (embedded dev server, test server,
 * docker-compose cluster) registers exactly these names with exactly these
 * types; the dev server gets them as `--search-attribute` flags at start-up,
 * any other server through {@link ensureSearchAttributes}.
 */
import type { Connection } from '@temporalio/client';
import { GRPC } from '../errors/grpc-status.js';
import { sdkAdmin, type IndexedValueTypeNumber, type NamespaceAdmin } from './namespace-admin.js';
import { SEARCH_ATTRIBUTES, type SearchAttributeKind } from '../workflows/search-attribute-names.js';

export { SEARCH_ATTRIBUTES, type SearchAttributeKind };

/**
 * CLI type name → the server's `temporal.api.enums.v1.IndexedValueType` number, written out so
 * that this module loads no protobuf descriptors (tests/unit/namespace-wire.test.ts compares
 * them with the SDK's enum).
 */
export const INDEXED_VALUE_TYPE: Record<SearchAttributeKind, IndexedValueTypeNumber> = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
  KeywordList: 7,
};

/** The proto name of a type number, for messages: `INDEXED_VALUE_TYPE_KEYWORD`. */
function indexedValueTypeName(n: IndexedValueTypeNumber): string {
  const kind = Object.entries(INDEXED_VALUE_TYPE).find(([, v]) => v === n)?.[0];
  return kind === undefined
    ? String(n)
    : `INDEXED_VALUE_TYPE_${kind.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

/**
 * `temporal server start-dev` flags that register {@link SEARCH_ATTRIBUTES},
 * e.g. `['--search-attribute', 'LoopName=Keyword', ...]`.
 */
export function searchAttributeFlags(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, kind]) => ['--search-attribute', `${name}=${kind}`]);
}

/** A search attribute already exists on the server with a different type. */
export class SearchAttributeConflictError extends Error {
  override readonly name = 'SearchAttributeConflictError';
  constructor(
    readonly namespace: string,
    readonly attribute: string,
    readonly expected: SearchAttributeKind,
    readonly actual: string,
  ) {
    super(
      `Search attribute ${attribute} in Temporal namespace "${namespace}" has type ${actual}, but ll-loop needs ${expected}. ` +
        `Fix: use another namespace (TEMPORAL_NAMESPACE), or remove it with ` +
        `\`temporal operator search-attribute remove --namespace ${namespace} --name ${attribute}\` and run again.`,
    );
  }
}

/** A concurrent registration by another process is success for us. */
function isAlreadyExists(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (e == null) return false;
  if (e.code === GRPC.alreadyExists) return true;
  if (typeof e.message === 'string' && /already exists/i.test(e.message)) return true;
  return e.cause !== undefined && e.cause !== err && isAlreadyExists(e.cause);
}

/**
 * Register any of {@link SEARCH_ATTRIBUTES} that `namespace` lacks.
 *
 * Idempotent and safe to race: names already present are skipped, and an
 * "already exists" answer (another process won the race) counts as success.
 *
 * @returns the names that were added (empty when all were present)
 * @throws SearchAttributeConflictError when a name exists with another type
 */
export async function ensureSearchAttributes(
  server: Connection | NamespaceAdmin,
  namespace: string,
): Promise<string[]> {
  const admin = 'customSearchAttributes' in server ? server : sdkAdmin(server);
  const custom = await admin.customSearchAttributes(namespace);
  const missing: Record<string, IndexedValueTypeNumber> = {};
  for (const [name, kind] of Object.entries(SEARCH_ATTRIBUTES)) {
    const want = INDEXED_VALUE_TYPE[kind];
    const have = custom[name];
    if (have === undefined) {
      missing[name] = want;
    } else if (have !== want) {
      throw new SearchAttributeConflictError(namespace, name, kind, indexedValueTypeName(have));
    }
  }
  const names = Object.keys(missing);
  if (names.length === 0) return [];
  try {
    await admin.addSearchAttributes(namespace, missing);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  return names;
}

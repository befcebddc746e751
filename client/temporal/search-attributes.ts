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
// @temporalio/proto is CommonJS and Node cannot see its named exports from ESM,
// so the namespace object has to come from the default import.
import proto from '@temporalio/proto';
import { GRPC } from '../grpc-status.js';
import { SEARCH_ATTRIBUTES, type LoopSearchAttributeName, type SearchAttributeKind } from './search-attribute-names.js';

const { IndexedValueType } = proto.temporal.api.enums.v1;

export { SEARCH_ATTRIBUTES, type LoopSearchAttributeName, type SearchAttributeKind };

/** CLI type name → the server's proto enum value (no magic numbers). */
const INDEXED_VALUE_TYPE: Record<SearchAttributeKind, proto.temporal.api.enums.v1.IndexedValueType> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

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
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const custom = listed.customAttributes ?? {};
  const missing: Record<string, proto.temporal.api.enums.v1.IndexedValueType> = {};
  for (const [name, kind] of Object.entries(SEARCH_ATTRIBUTES)) {
    const want = INDEXED_VALUE_TYPE[kind];
    const have = custom[name];
    if (have === undefined || have === null) {
      missing[name] = want;
    } else if (have !== want) {
      throw new SearchAttributeConflictError(namespace, name, kind, IndexedValueType[have] ?? String(have));
    }
  }
  const names = Object.keys(missing);
  if (names.length === 0) return [];
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  return names;
}

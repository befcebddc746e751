/**
 * Making a shared Temporal cluster ready for ll-loop: the namespace, ll-loop's search attributes,
 * and the wait until the server serves both (`ll-loop cluster setup`, client/commands/cluster.ts).
 *
 * Invariants: idempotent (what exists is left as it is); a refusal for lack of rights is not a
 * failure to hide but a report of what an administrator must run ({@link adminCommands});
 * "ready" means the frontend answers a visibility query naming every attribute in the namespace,
 * which is what fails ("Namespace … not found", "… is not a valid search attribute") while the
 * server's namespace registry has not caught up with a change, and what made the first run after
 * a namespace was created fail.
 */
import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import { GRPC } from '../errors/grpc-status.js';
import { SEARCH_ATTRIBUTES, type SearchAttributeKind } from '../workflows/search-attribute-names.js';
import { ensureSearchAttributes, SearchAttributeConflictError } from './search-attributes.js';

const { IndexedValueType } = proto.temporal.api.enums.v1;

/** What a namespace has of what ll-loop needs. */
export interface ClusterStatus {
  namespace: string;
  namespaceExists: boolean;
  /** The namespace's retention of closed runs, when it exists. */
  retentionMs?: number;
  /** ll-loop's attributes registered with the right type. */
  present: string[];
  missing: string[];
  /** Registered with another type: setup cannot fix these (another namespace, or remove them). */
  conflicts: Array<{ name: string; expected: SearchAttributeKind; actual: string }>;
  /** undefined: the frontend serves the namespace and every attribute; else why not, in its words. */
  notServed?: string;
}

/** Whether the status is all ll-loop needs. */
export function isReady(s: ClusterStatus): boolean {
  return s.namespaceExists && s.missing.length === 0 && s.conflicts.length === 0 && s.notServed === undefined;
}

interface CodedError {
  code?: unknown;
  details?: unknown;
  message?: unknown;
}

function reason(err: unknown): string {
  const e = err as CodedError;
  return String((typeof e?.details === 'string' && e.details) || e?.message || err);
}

/** The credentials do not allow the call (or the service offers it elsewhere, as Cloud does). */
function isRefusal(err: unknown): boolean {
  const code = (err as CodedError)?.code;
  return code === GRPC.permissionDenied || code === GRPC.unauthenticated || code === GRPC.unimplemented;
}

function durationMs(d: { seconds?: unknown; nanos?: number | null } | null | undefined): number | undefined {
  if (!d) return undefined;
  return Number(d.seconds ?? 0) * 1000 + Math.round((d.nanos ?? 0) / 1e6);
}

/** A visibility query naming every attribute: accepted only when the frontend serves them all. */
const PROBE_QUERY = Object.keys(SEARCH_ATTRIBUTES)
  .map((name) => `${name} = '__ll_loop_setup_probe'`)
  .join(' AND ');

/** undefined when the frontend serves the namespace and ll-loop's attributes, else its refusal. */
async function probeServed(connection: Connection, namespace: string): Promise<string | undefined> {
  try {
    await connection.workflowService.countWorkflowExecutions({ namespace, query: PROBE_QUERY });
    return undefined;
  } catch (err) {
    return reason(err);
  }
}

/** Read what `namespace` has (changes nothing). */
export async function inspectCluster(connection: Connection, namespace: string): Promise<ClusterStatus> {
  const status: ClusterStatus = { namespace, namespaceExists: false, present: [], missing: [], conflicts: [] };
  try {
    const described = await connection.workflowService.describeNamespace({ namespace });
    status.namespaceExists = true;
    const retention = durationMs(described.config?.workflowExecutionRetentionTtl);
    if (retention !== undefined) status.retentionMs = retention;
  } catch (err) {
    if ((err as CodedError).code !== GRPC.notFound) throw err;
    status.missing = Object.keys(SEARCH_ATTRIBUTES);
    status.notServed = `namespace ${namespace} does not exist`;
    return status;
  }
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const custom = listed.customAttributes ?? {};
  for (const [name, kind] of Object.entries(SEARCH_ATTRIBUTES)) {
    const have = custom[name];
    if (have === undefined || have === null) status.missing.push(name);
    else if (IndexedValueType[have] !== `INDEXED_VALUE_TYPE_${kindToProto(kind)}`)
      status.conflicts.push({ name, expected: kind, actual: String(IndexedValueType[have] ?? have) });
    else status.present.push(name);
  }
  const notServed = await probeServed(connection, namespace);
  if (notServed !== undefined) status.notServed = notServed;
  return status;
}

function kindToProto(kind: SearchAttributeKind): string {
  return kind === 'KeywordList' ? 'KEYWORD_LIST' : kind.toUpperCase();
}

/** What {@link setupCluster} did, or would have an administrator do. */
export interface SetupOutcome {
  before: ClusterStatus;
  after: ClusterStatus;
  createdNamespace: boolean;
  addedAttributes: string[];
  /** The calls the credentials were refused: the administrator's part ({@link adminCommands}). */
  refused: Array<{ what: 'namespace' | 'search-attributes'; reason: string }>;
}

export interface SetupOptions {
  /** Retention of closed runs for a namespace this call creates. */
  retentionMs: number;
  /** How long to wait for the server to serve what was created (default 60 s). */
  serveTimeoutMs?: number;
  log?: (line: string) => void;
}

/**
 * Create the namespace when missing, register the missing attributes, and wait until the
 * frontend serves both. Conflicting attribute types are reported, never changed.
 */
export async function setupCluster(
  connection: Connection,
  namespace: string,
  opts: SetupOptions,
): Promise<SetupOutcome> {
  const log = opts.log ?? (() => undefined);
  const before = await inspectCluster(connection, namespace);
  const outcome: SetupOutcome = { before, after: before, createdNamespace: false, addedAttributes: [], refused: [] };
  if (!before.namespaceExists) {
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(opts.retentionMs),
        description: 'll-loop runs (created by ll-loop cluster setup)',
      });
      outcome.createdNamespace = true;
      log(`created namespace ${namespace}`);
    } catch (err) {
      if ((err as CodedError).code === GRPC.alreadyExists) log(`namespace ${namespace} was created meanwhile`);
      else if (isRefusal(err)) {
        outcome.refused.push({ what: 'namespace', reason: reason(err) });
        outcome.refused.push({ what: 'search-attributes', reason: 'the namespace does not exist yet' });
        return outcome;
      } else throw err;
    }
    // describeNamespace reads the database and knows it at once; the frontend's namespace
    // registry, which every other call goes through, learns of it at its next refresh.
    log('waiting for the server to serve it…');
    await waitFor(
      () => listsAttributes(connection, namespace),
      opts.serveTimeoutMs,
      `namespace ${namespace} to be served`,
    );
  }
  if (before.conflicts.length === 0) {
    try {
      outcome.addedAttributes = await ensureSearchAttributes(connection, namespace);
      if (outcome.addedAttributes.length) log(`registered search attributes ${outcome.addedAttributes.join(', ')}`);
    } catch (err) {
      if (err instanceof SearchAttributeConflictError) throw err;
      if (!isRefusal(err)) throw err;
      outcome.refused.push({ what: 'search-attributes', reason: reason(err) });
      outcome.after = await inspectCluster(connection, namespace);
      return outcome;
    }
  }
  const first = await probeServed(connection, namespace);
  if (first !== undefined) {
    log('waiting for the server to serve them…');
    await waitFor(
      async () => (await probeServed(connection, namespace)) ?? true,
      opts.serveTimeoutMs,
      `the server to serve namespace ${namespace} and ll-loop's search attributes`,
    );
  }
  outcome.after = await inspectCluster(connection, namespace);
  return outcome;
}

/**
 * Wait until the frontend serves ll-loop's attributes in `namespace` (after they were just
 * registered: a run started before would be refused, "no mapping defined for search attribute").
 */
export async function waitUntilServed(connection: Connection, namespace: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => (await probeServed(connection, namespace)) ?? true,
    timeoutMs,
    `the server to serve ll-loop's search attributes in namespace ${namespace}`,
  );
}

async function listsAttributes(connection: Connection, namespace: string): Promise<true | string> {
  try {
    await connection.operatorService.listSearchAttributes({ namespace });
    return true;
  } catch (err) {
    return reason(err);
  }
}

/**
 * Poll `check` until it holds (true); anything else is the server's last answer, named when
 * giving up. The server's registry refreshes every few seconds.
 */
async function waitFor(
  check: () => Promise<true | string | false>,
  timeoutMs = 60_000,
  what = 'the server',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await check();
    if (answer === true) return;
    if (Date.now() > deadline)
      throw new Error(
        `gave up after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${answer ? ` (last answer: ${answer})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Retention as the temporal CLI writes it (`30d`, `72h`). */
export function retentionFlag(ms: number): string {
  const hours = Math.max(1, Math.round(ms / 3_600_000));
  return hours % 24 === 0 ? `${hours / 24}d` : `${hours}h`;
}

/**
 * The `temporal operator …` commands an administrator runs to do what the credentials were
 * refused: create the namespace, register the attributes (all Keyword: one command).
 */
export function adminCommands(
  address: string,
  status: Pick<ClusterStatus, 'namespace' | 'namespaceExists' | 'missing'>,
  retentionMs: number,
): string[] {
  const target = `--address ${address} --namespace ${status.namespace}`;
  const commands: string[] = [];
  if (!status.namespaceExists)
    commands.push(`temporal operator namespace create ${target} --retention ${retentionFlag(retentionMs)}`);
  const byKind = new Map<SearchAttributeKind, string[]>();
  for (const name of status.missing) {
    const kind = SEARCH_ATTRIBUTES[name as keyof typeof SEARCH_ATTRIBUTES];
    byKind.set(kind, [...(byKind.get(kind) ?? []), name]);
  }
  for (const [kind, names] of byKind)
    commands.push(
      `temporal operator search-attribute create ${target} ${names.map((n) => `--name ${n}`).join(' ')} --type ${kind}`,
    );
  return commands;
}

/**
 * What a server answer means when the cluster is not set up for ll-loop: a namespace that does
 * not exist, or ll-loop's search attributes not registered (or not yet served) in it. Every
 * command meets these through the SDK, whose messages name neither the cause nor the fix
 * ("Namespace not found: 'default'", "Failed to start Workflow"); this module turns them into one
 * line with the fix. It loads no Temporal SDK: errors are recognised by name, gRPC code and text.
 */
import { SEARCH_ATTRIBUTES } from '../workflows/search-attribute-names.js';
import { causes, type ErrorLike } from './error-causes.js';
import { GRPC } from './grpc-status.js';

/** The fix every cluster setup problem shares. */
export const CLUSTER_SETUP_FIX =
  'run `ll-loop cluster setup` with the same TEMPORAL_* settings (it creates the namespace and registers ' +
  "ll-loop's search attributes, or prints the commands an administrator runs); see docs/temporal.md";

/** A namespace or search attribute problem, told in one line (`message`) with its fix. */
export interface ClusterProblem {
  kind: 'namespace-missing' | 'search-attributes-missing';
  message: string;
  fix: string;
}

/** The server's own words for a gRPC error: `details` (grpc-js), else the message. */
function textOf(e: ErrorLike): string {
  if (typeof e.details === 'string' && e.details) return e.details;
  return typeof e.message === 'string' ? e.message : '';
}

/** The server's "Namespace X is not found." and the SDK's "Namespace not found: 'X'". */
const NAMESPACE_NOT_FOUND = /\bnamespace\b.*\bnot found\b/i;
const NAMED_NAMESPACE = /namespace\s+(?:not found:\s*)?['"]?([\w.-]+)['"]?/i;
/** The worker's (Rust core's) words when it starts: no gRPC code on the error, only this text. */
const WORKER_NAMESPACE_NOT_FOUND = /\bNamespace \S+ was not found or otherwise could not be described\b/;
const OUR_ATTRIBUTE = new RegExp(`\\b(${Object.keys(SEARCH_ATTRIBUTES).join('|')})\\b`);

/**
 * The cluster setup problem `err` (or one of its causes) reports, or undefined. `namespace`: the
 * one the command used, named when the server's answer does not.
 */
export function clusterProblemOf(err: unknown, namespace?: string): ClusterProblem | undefined {
  for (const e of causes(err)) {
    const text = textOf(e);
    const missingNamespace =
      e.name === 'NamespaceNotFoundError' ||
      (e.code === GRPC.notFound && NAMESPACE_NOT_FOUND.test(text)) ||
      WORKER_NAMESPACE_NOT_FOUND.test(text);
    if (missingNamespace) {
      const named =
        (typeof e.namespace === 'string' && e.namespace) || NAMED_NAMESPACE.exec(text)?.[1] || namespace || 'default';
      return {
        kind: 'namespace-missing',
        message: `Temporal namespace "${named}" does not exist on this server (ll-loop runs need it, with ll-loop's search attributes)`,
        fix: `${CLUSTER_SETUP_FIX}; or set TEMPORAL_NAMESPACE to a namespace that exists`,
      };
    }
    const attribute = OUR_ATTRIBUTE.exec(text)?.[1];
    if (e.code === GRPC.invalidArgument && attribute && /search attribute|not defined|unknown|invalid/i.test(text)) {
      return {
        kind: 'search-attributes-missing',
        message:
          `ll-loop's search attributes are not registered${namespace ? ` in Temporal namespace "${namespace}"` : ''} ` +
          `(or not yet served): the server says "${text.trim()}"`,
        fix: CLUSTER_SETUP_FIX,
      };
    }
  }
  return undefined;
}

/**
 * The SDK wraps a server's refusal in a ServiceError whose message is only what was attempted
 * ("Failed to start Workflow"); the reason is in its gRPC cause. The attempt and the reason in
 * one line, or undefined when `err` is not such a wrapper.
 */
export function withServerReason(err: unknown): string | undefined {
  const [outer, ...inner] = causes(err);
  if (outer?.name !== 'ServiceError' || typeof outer.message !== 'string') return undefined;
  const reason = inner.map(textOf).find((t) => t && t !== outer.message);
  return reason ? `${outer.message}: ${reason.trim()}` : undefined;
}

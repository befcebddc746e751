/**
 * A run's scope lock, seen from the client: the request a run carries (`lockRequestFor`), the
 * quick refusal of a busy run before anything starts (`precheckScopes`), and the error a busy run
 * ends with (`ScopeBusyError`, exit 8). The lock itself is a workflow
 * (workflows/scope-lock-workflow.ts); the check inside the run decides races this one misses.
 */
import type { Client } from '@temporalio/client';
import { blockersOf, type Blocker, type ScopeQueue } from '../../fsm/run/scope-queue.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { claimedScopes } from '../../fsm/scopes.js';
import { shortHash, type Checkout } from '../../host/checkout.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import {
  SCOPE_LOCK_ID_PREFIX,
  SCOPE_QUEUE_MEMO_KEY,
  scopeBusyMessage,
} from '../../workflows/scope-lock-definitions.js';
import { UsageError } from '../../errors/errors.js';
import { bounded } from '../find/run-target.js';
import { ScopeBusyError } from './scope-busy-error.js';

export { ScopeBusyError };

/** How long the pre-check waits for the lock workflow to answer before leaving it to the run. */
const PRECHECK_TIMEOUT_MS = 2_000;

/** The lock workflow of a domain. */
function lockWorkflowId(domain: string): string {
  return `${SCOPE_LOCK_ID_PREFIX}${shortHash(domain)}`;
}

export interface LockOptions {
  /** `--queue`: wait in FIFO order instead of failing at once. */
  wait: boolean;
  /** `--queue-timeout`, in seconds. */
  queueTimeoutS?: number;
  /** The lock workflow's task queue; default: the checkout's (served by its worker). */
  taskQueue?: string;
}

/**
 * The scope lock request of a run of `definition` in `checkout` (or any domain with a root and a
 * queue: a portable run's `repo:<repository>`). Scopes are normalised against the root; a scope
 * outside it (which the loader already rejects in files) is a usage error.
 */
export function lockRequestFor(
  definition: LoopDefinition,
  checkout: Pick<Checkout, 'root' | 'lockDomain' | 'queue'>,
  opts: LockOptions,
): ScopeLockRequest {
  const { scopes, problems } = claimedScopes(definition.scope, checkout.root);
  if (problems.length)
    throw new UsageError(
      `loop "${definition.name}": ${problems.map((p) => p.message).join('; ')}`,
      `use scope paths inside ${checkout.root}`,
    );
  return {
    domain: checkout.lockDomain,
    workflowId: lockWorkflowId(checkout.lockDomain),
    taskQueue: opts.taskQueue ?? checkout.queue,
    scopes,
    wait: opts.wait,
    ...(opts.queueTimeoutS === undefined ? {} : { queueTimeoutS: opts.queueTimeoutS }),
  };
}

function describeBlocker(b: Blocker | undefined): string {
  if (!b) return 'another run';
  return `${b.holds ? 'held' : 'queued for'} by ${b.run} (scope ${b.scopes.join(', ')})`;
}

/**
 * Refuse a run that would be denied anyway, before it is created: read the domain's lock workflow
 * (its memo holds its queue; a describe needs no worker) for holders or waiters overlapping
 * `lock.scopes`. Runs that wait (`--queue`) are not checked. Anything uncertain (no lock
 * workflow, no answer within 2 s) lets the run start: its own request decides.
 */
export async function precheckScopes(
  client: Client,
  lock: ScopeLockRequest,
  timeoutMs = PRECHECK_TIMEOUT_MS,
): Promise<void> {
  if (lock.wait) return;
  let blockers: Blocker[];
  try {
    const description = await bounded(client, timeoutMs, () => client.workflow.getHandle(lock.workflowId).describe());
    const queue = description.memo?.[SCOPE_QUEUE_MEMO_KEY] as ScopeQueue | undefined;
    if (description.status.name !== 'RUNNING' || !queue) return;
    blockers = await stillOpen(client, timeoutMs, blockersOf(queue, lock.scopes));
  } catch {
    return;
  }
  if (blockers.length === 0) return;
  throw busyBefore(lock, blockers);
}

/** The refusal of a start whose scopes `blockers` hold or are ahead for: nothing was started (exit 8). */
export function busyBefore(lock: ScopeLockRequest, blockers: Blocker[]): ScopeBusyError {
  return new ScopeBusyError(`${scopeBusyMessage(lock.scopes, describeBlocker(blockers[0]))}; nothing was started`, {
    scopes: lock.scopes,
    blockers,
    reason: 'busy',
    domain: lock.domain,
  });
}

/**
 * The blockers whose runs are still open. The memo is the lock's view as of the last request or
 * release it handled: a run that has ended sent its release before closing, so the lock handles it
 * before any later request, and a run that is gone without releasing is freed by the lock's
 * liveness check. Either way it is not in the way; refusing for it would turn a start right after
 * it (a resume of the run, on a busy machine) into "scope busy". Unknown state counts as ended.
 */
async function stillOpen(client: Client, timeoutMs: number, blockers: Blocker[]): Promise<Blocker[]> {
  const open = await Promise.all(
    blockers.map((b) =>
      bounded(client, timeoutMs, () => client.workflow.getHandle(b.run).describe()).then(
        (d) => d.status.name === 'RUNNING',
        () => false,
      ),
    ),
  );
  return blockers.filter((_, i) => open[i]);
}

/**
 * `ll-loop queue list`'s fast path: the checkout's worker lists the scope locks (serve-queues.ts)
 * and the command only prints them, loading no Temporal SDK and opening no connection. Undefined
 * means "list them yourself" (client/worker-ask.ts says when); listing changes nothing, so listing
 * again the ordinary way is always safe, and every error the command reports is its own.
 */
import { askCheckoutWorker } from '../worker-ask.js';
import type { WorkerQueuesReply, WorkerQueuesRequest } from './queues-wire.js';
import type { LockQueueReport } from './scope-queues.js';

/** How long the worker may take before the command lists the locks itself: one describe per lock. */
const QUEUES_ANSWER_MS = 15_000;

export async function queuesThroughWorker(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LockQueueReport[] | undefined> {
  const reply = await askCheckoutWorker<WorkerQueuesRequest, WorkerQueuesReply>(
    cwd,
    env,
    { kind: 'queues', cwd },
    QUEUES_ANSWER_MS,
  );
  return reply?.kind === 'queues' && Array.isArray(reply.reports) ? reply.reports : undefined;
}

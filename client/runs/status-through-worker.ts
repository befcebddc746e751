/**
 * `ll-loop status`'s fast path: the checkout's worker makes the report (serve-status.ts) and the
 * command only prints it, loading no Temporal SDK and opening no connection. Undefined means "make
 * it yourself" (client/worker-ask.ts says when); reading a status changes nothing, so making it
 * again the ordinary way is always safe, and every error the command reports is its own.
 */
import { askCheckoutWorker } from '../worker-ask.js';
import type { StatusReport, WorkerStatusReply, WorkerStatusRequest } from './status-wire.js';

/**
 * How long the worker may take before the command asks Temporal itself: a report waits at most a
 * status query's 2 s for the run's worker (longer only on a server that has just restarted).
 */
const STATUS_ANSWER_MS = 15_000;

export async function statusThroughWorker(
  cwd: string,
  target: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StatusReport | undefined> {
  const reply = await askCheckoutWorker<WorkerStatusRequest, WorkerStatusReply>(
    cwd,
    env,
    { kind: 'status', cwd, target },
    STATUS_ANSWER_MS,
  );
  return reply?.kind === 'status' && typeof reply.report?.id === 'string' ? reply.report : undefined;
}

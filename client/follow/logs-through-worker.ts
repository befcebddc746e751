/**
 * `ll-loop logs`'s fast path: the checkout's worker makes the report (serve-logs.ts) and the
 * command only prints it, loading no Temporal SDK and replaying no history itself. Undefined means
 * "make it yourself" (client/worker-ask.ts says when); reading logs changes nothing, so making
 * them again the ordinary way is always safe, and every error the command reports is its own.
 */
import { askCheckoutWorker } from '../worker-ask.js';
import type { LogsQuery, LogsReport, WorkerLogsReply, WorkerLogsRequest } from './logs-wire.js';

/**
 * How long the worker may take before the command reads the run itself: a long run's history is
 * replayed to find its actions, which the command would have to do too.
 */
const LOGS_ANSWER_MS = 60_000;

export async function logsThroughWorker(
  query: LogsQuery,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LogsReport | undefined> {
  const reply = await askCheckoutWorker<WorkerLogsRequest, WorkerLogsReply>(
    query.cwd,
    env,
    { kind: 'logs', ...query },
    LOGS_ANSWER_MS,
  );
  return reply?.kind === 'logs' && typeof reply.report?.id === 'string' && Array.isArray(reply.report.actions)
    ? reply.report
    : undefined;
}

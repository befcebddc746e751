/**
 * `ll-loop history`'s fast path: the checkout's worker makes the report (serve-history.ts) and
 * the command only prints it, loading no Temporal SDK and replaying no history itself. Undefined
 * means "make it yourself" (client/worker-ask.ts says when); reading a history changes nothing, so
 * making it again the ordinary way is always safe, and every error the command reports is its own.
 */
import { askCheckoutWorker } from '../worker-ask.js';
import type { HistoryQuery, HistoryReport, WorkerHistoryReply, WorkerHistoryRequest } from './history-wire.js';

/** How long the worker may take before the command reads the history itself (a long run replays). */
const HISTORY_ANSWER_MS = 60_000;

export async function historyThroughWorker(
  query: HistoryQuery,
  env: NodeJS.ProcessEnv = process.env,
): Promise<HistoryReport | undefined> {
  const reply = await askCheckoutWorker<WorkerHistoryRequest, WorkerHistoryReply>(
    query.cwd,
    env,
    { kind: 'history', ...query },
    HISTORY_ANSWER_MS,
  );
  const report = reply?.kind === 'history' ? reply.report : undefined;
  if (report?.kind === 'runs' && Array.isArray(report.entries)) return report;
  if (report?.kind === 'events' && Array.isArray(report.report?.events)) return report;
  return undefined;
}

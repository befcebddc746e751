/**
 * The checkout worker's side of `ll-loop history` over its socket (history-wire.ts): the report
 * the command would make (history-report.ts), on the worker's own client and connection. A
 * failure is a refusal: the command then makes the report itself and reports its own error (an
 * unknown loop or run, filters without a run id) exactly as it always has.
 */
import type { Session } from '../temporal/session.js';
import { historyReportOf } from './history-report.js';
import type { WorkerHistoryReply, WorkerHistoryRequest } from './history-wire.js';

export async function serveHistory(request: WorkerHistoryRequest, session: Session): Promise<WorkerHistoryReply> {
  try {
    const { cwd, loop, runId, events, state } = request;
    const query = {
      cwd,
      loop,
      ...(runId === undefined ? {} : { runId }),
      ...(events === undefined ? {} : { events }),
      ...(state === undefined ? {} : { state }),
    };
    return { kind: 'history', report: await historyReportOf(session, query) };
  } catch (err) {
    return { kind: 'refused', why: `the report failed: ${(err as Error)?.message ?? String(err)}` };
  }
}

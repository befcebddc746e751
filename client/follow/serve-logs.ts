/**
 * The checkout worker's side of `ll-loop logs` over its socket (logs-wire.ts): the report the
 * command would make (logs-report.ts), on the worker's own client and connection. A failure is a
 * refusal: the command then makes the report itself and reports its own error (an unknown run, an
 * item that has not started) exactly as it always has.
 */
import type { Session } from '../temporal/session.js';
import { logsReportOf } from './logs-report.js';
import type { WorkerLogsReply, WorkerLogsRequest } from './logs-wire.js';

export async function serveLogs(request: WorkerLogsRequest, session: Session): Promise<WorkerLogsReply> {
  try {
    const { cwd, target, state, item } = request;
    const query = { cwd, target, ...(state === undefined ? {} : { state }), ...(item === undefined ? {} : { item }) };
    return { kind: 'logs', report: await logsReportOf(session, query) };
  } catch (err) {
    return { kind: 'refused', why: `the report failed: ${(err as Error)?.message ?? String(err)}` };
  }
}

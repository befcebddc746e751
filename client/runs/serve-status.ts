/**
 * The checkout worker's side of `ll-loop status` over its socket (status-wire.ts): the report the
 * command would make (status-report.ts), on the worker's own client and connection. A failure is a
 * refusal: the command then makes the report itself and reports its own error (an unknown run, an
 * ambiguous name) exactly as it always has.
 */
import type { Session } from '../temporal/session.js';
import { statusReportOf } from './status-report.js';
import type { WorkerStatusReply, WorkerStatusRequest } from './status-wire.js';

export async function serveStatus(request: WorkerStatusRequest, session: Session): Promise<WorkerStatusReply> {
  try {
    // The worker's session may have started the server, long ago: whether the server has just
    // restarted is read from its pid file, as the command reads it.
    const endpoint = { ...session.endpoint, started: false };
    return { kind: 'status', report: await statusReportOf({ ...session, endpoint }, request.cwd, request.target) };
  } catch (err) {
    return { kind: 'refused', why: `the report failed: ${(err as Error)?.message ?? String(err)}` };
  }
}

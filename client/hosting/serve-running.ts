/**
 * The checkout worker's side of `ll-loop list --running` over its socket (running-wire.ts): the
 * listing the command would make, on the worker's own client and connection. A failure is a
 * refusal: the command then lists the runs itself and reports its own error as it always has.
 */
import type { Session } from '../temporal/session.js';
import { runningListingsOn } from './running-listings.js';
import type { WorkerRunningReply, WorkerRunningRequest } from './running-wire.js';

export async function serveRunning(request: WorkerRunningRequest, session: Session): Promise<WorkerRunningReply> {
  try {
    return {
      kind: 'running',
      runs: await runningListingsOn(session, request.cwd, { allProjects: request.all_projects }),
    };
  } catch (err) {
    return { kind: 'refused', why: `the listing failed: ${(err as Error)?.message ?? String(err)}` };
  }
}

/**
 * The checkout worker's side of `ll-loop inbox` over its socket (inbox-wire.ts): the listing the
 * command would make (find-waiting.ts waitingRuns), on the worker's own client and connection.
 * A failure is a refusal: the command then lists the runs itself and reports its own error.
 */
import type { Session } from '../temporal/session.js';
import { waitingRuns } from './find-waiting.js';
import type { WorkerInboxReply, WorkerInboxRequest } from './inbox-wire.js';

export async function serveInbox(request: WorkerInboxRequest, session: Session): Promise<WorkerInboxReply> {
  try {
    const { client, connection } = session;
    const waiting = await waitingRuns(client, connection, request.project ?? undefined, request.here);
    return { kind: 'inbox', waiting };
  } catch (err) {
    return { kind: 'refused', why: `the listing failed: ${(err as Error)?.message ?? String(err)}` };
  }
}

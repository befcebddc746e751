/**
 * The checkout worker's side of `ll-loop queue list` over its socket (queues-wire.ts): the scope
 * locks as the command would list them, on the worker's own client. A failure is a refusal: the
 * command then lists them itself and reports its own error as it always has.
 */
import type { Client } from '@temporalio/client';
import { listLockQueues } from './scope-queues.js';
import type { WorkerQueuesReply } from './queues-wire.js';

export async function serveQueues(client: Client): Promise<WorkerQueuesReply> {
  try {
    return { kind: 'queues', reports: await listLockQueues(client) };
  } catch (err) {
    return { kind: 'refused', why: `the listing failed: ${(err as Error)?.message ?? String(err)}` };
  }
}

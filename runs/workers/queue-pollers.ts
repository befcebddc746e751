/**
 * Who serves a task queue: the workers that polled it lately, as Temporal's DescribeTaskQueue
 * reports them (identity `<pid>@<host> ll-loop <version>` for ll-loop's workers). A poller that
 * has not polled for longer than a long poll lasts is gone (Temporal keeps listing dead pollers
 * for minutes), and so is one of this host whose process is not alive.
 */
import type { Client } from '@temporalio/client';
import { hostId, parseWorkerIdentity } from '../../host/checkout.js';
import { pidAlive } from '../../host/checkout-claim.js';

/** A long poll lasts up to ~60 s; a live poller has polled within this. */
const LIVE_POLLER_MS = 75_000;

export interface QueueWorker {
  identity: string;
  host?: string;
  pid?: number;
  version?: string;
  last_poll: string;
}

/** `kind`: which tasks — workflow tasks or activity (action) tasks. */
export async function queueWorkers(
  client: Client,
  taskQueue: string,
  kind: 'workflow' | 'activity' = 'workflow',
  now = Date.now(),
): Promise<QueueWorker[]> {
  const res = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: kind === 'workflow' ? 1 : 2,
  });
  const out: QueueWorker[] = [];
  const host = hostId();
  for (const poller of res.pollers ?? []) {
    const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
    const at = seconds * 1000 + Math.floor((poller.lastAccessTime?.nanos ?? 0) / 1e6);
    if (now - at > LIVE_POLLER_MS) continue;
    const identity = poller.identity ?? '?';
    const parts = parseWorkerIdentity(identity);
    // A worker of this host whose process is gone serves nothing, however recently it polled.
    if (parts && parts.host === host && !pidAlive(parts.pid)) continue;
    out.push({ identity, ...(parts ?? {}), last_poll: new Date(at).toISOString() });
  }
  return out;
}

/** `pid 123 on host (0.3.0)`, for tables. */
export function describeWorker(w: QueueWorker): string {
  return w.pid !== undefined ? `pid ${w.pid} on ${w.host} (${w.version})` : w.identity;
}

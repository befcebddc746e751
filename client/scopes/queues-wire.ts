/**
 * `ll-loop queue list` asks the checkout's worker over its socket (client/worker-ask.ts), one JSON
 * line each way: the worker lists the scope locks as the command would (scope-queues.ts) on its
 * own client, so the command loads no Temporal SDK. Light on purpose: types only.
 */
import type { LockQueueReport } from './scope-queues.js';

export interface WorkerQueuesRequest {
  kind: 'queues';
  /** The command's build: a worker of another build refuses. */
  code_id: string;
  /** The Temporal server the command would use: another server's worker refuses. */
  address: string;
  /** The checkout root the command resolved: another checkout's worker refuses. */
  root: string;
  /** The command's directory. */
  cwd: string;
}

export type WorkerQueuesReply = { kind: 'queues'; reports: LockQueueReport[] } | { kind: 'refused'; why: string };

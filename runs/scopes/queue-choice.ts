/**
 * `--queue` / `--queue-timeout` of `resume` and `rerun` (client/commands/queue-flags.ts) applied
 * to the scope lock request of the run they continue from: the new run waits for its turn.
 */
import type { ScopeLockRequest } from '../../workflows/definitions.js';

/** What the flags ask for; empty when neither was given. */
export interface QueueChoice {
  queue?: true;
  queueTimeoutS?: number;
}

/**
 * The earlier run's scope lock request as the new run makes it: waiting (with the timeout given,
 * or none) when `--queue`/`--queue-timeout` says so, else as it was.
 */
export function lockWithQueueChoice(lock: ScopeLockRequest, choice: QueueChoice): ScopeLockRequest {
  if (!choice.queue) return lock;
  const next: ScopeLockRequest = { ...lock, wait: true };
  if (choice.queueTimeoutS === undefined) delete next.queueTimeoutS;
  else next.queueTimeoutS = choice.queueTimeoutS;
  return next;
}

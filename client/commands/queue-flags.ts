/**
 * `--queue` and `--queue-timeout D` of the commands that start a run from an earlier one (`resume`
 * of a stopped run, `rerun`): as for `run`, a run whose scopes another run holds waits for its
 * turn instead of failing at once (exit 8); `--queue-timeout` implies `--queue`. Without them the
 * new run asks for its scopes the way the earlier run asked.
 */
import { bool, str, type CommandContext } from '../command-table.js';
import { parseDuration } from '../schedules/durations.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';

/** The flags such a command declares. */
export const QUEUE_FLAGS = {
  queue: { type: 'boolean' },
  'queue-timeout': { type: 'string' },
} as const;

/** What the flags ask for; empty when neither was given. */
export interface QueueChoice {
  queue?: true;
  queueTimeoutS?: number;
}

export function queueChoiceOf(ctx: CommandContext): QueueChoice {
  const raw = str(ctx, 'queue-timeout');
  const queueTimeoutS = raw === undefined ? undefined : parseDuration(raw, '--queue-timeout') / 1000;
  if (!bool(ctx, 'queue') && queueTimeoutS === undefined) return {};
  return { queue: true, ...(queueTimeoutS === undefined ? {} : { queueTimeoutS }) };
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

/**
 * `--queue` and `--queue-timeout D` of the commands that start a run from an earlier one (`resume`
 * of a stopped run, `rerun`): as for `run`, a run whose scopes another run holds waits for its
 * turn instead of failing at once (exit 8); `--queue-timeout` implies `--queue`. Without them the
 * new run asks for its scopes the way the earlier run asked.
 */
import { bool, str, type CommandContext } from '../command-table.js';
import { parseDuration } from '../../runs/schedules/durations.js';
import type { QueueChoice } from '../../runs/scopes/queue-choice.js';

/** The flags such a command declares. */
export const QUEUE_FLAGS = {
  queue: { type: 'boolean' },
  'queue-timeout': { type: 'string' },
} as const;

/** What `--queue` / `--queue-timeout D` on the command line ask for (empty: neither). */
export function queueChoiceOf(ctx: CommandContext): QueueChoice {
  const raw = str(ctx, 'queue-timeout');
  const queueTimeoutS = raw === undefined ? undefined : parseDuration(raw, '--queue-timeout') / 1000;
  if (!bool(ctx, 'queue') && queueTimeoutS === undefined) return {};
  return { queue: true, ...(queueTimeoutS === undefined ? {} : { queueTimeoutS }) };
}

/**
 * Runs the checkout's worker accepted for `ll-loop run --background` and starts from its queue
 * (host/start-queue.ts): for a command that names one (by its id or its loop's name) before its
 * workflow exists, the wait until it does; for one whose start failed, that failure as the
 * command's error (its exit code the start's: 8 for busy scopes). Read from the project's own
 * `.loops/.worker/`: a start is queued there for a moment only, unless the server is down.
 */
import { failedStart, queuedStarts, type FailedStart, type QueuedStart } from '../../host/start-queue.js';
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';

/** How long a command waits for a queued run to start before it says it has not yet. */
const QUEUED_WAIT_MS = 30_000;

class StartFailedError extends CliError {
  override readonly name = 'StartFailedError';
  constructor(readonly failed: FailedStart) {
    super(
      `run ${failed.instance_id} never started: ${failed.message}`,
      failed.fix ?? `start it again: ll-loop run ${failed.loop} --background`,
      failed.exit_code,
    );
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Wait until no start of the project at `root` that `target` names (its run id, or its loop's
 * name) is queued any more, so that the caller finds the run on the server. Throws
 * StartFailedError when `target` is a run id whose start failed, and a CliError when a start is
 * still queued after `waitMs`. Without `target`, waits for every queued start (`list --running`).
 */
export async function queuedStartsMade(root: string, target?: string, waitMs = QUEUED_WAIT_MS): Promise<void> {
  const deadline = Date.now() + waitMs;
  const names = (s: QueuedStart) => target === undefined || s.instance_id === target || s.definition.name === target;
  for (;;) {
    const failed = target === undefined ? undefined : failedStart(root, target);
    if (failed) throw new StartFailedError(failed);
    const waiting = queuedStarts(root).filter(names);
    if (waiting.length === 0) return;
    if (Date.now() >= deadline)
      throw new CliError(
        `run ${waiting[0]!.instance_id} is queued on the checkout's worker and has not started yet`,
        'ask again in a moment; ll-loop worker status shows the worker and its log',
        EXIT.infrastructure,
      );
    await sleep(100);
  }
}

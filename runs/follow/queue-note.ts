/**
 * `run --queue`: while a run waits for its scopes, say so once on stderr, and behind whom.
 */
import type { Client } from '@temporalio/client';
import { statusQuery } from '../../workflows/definitions.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import { bounded } from '../find/run-target.js';

/**
 * `--queue`: say once on stderr that the run waits, and behind whom (the progress display starts
 * with the run's first event, which comes only once it holds its scopes). Stops asking once the
 * run holds its scopes or has closed.
 */
export function noteWhileQueued(
  client: Client,
  workflowId: string,
  lock: ScopeLockRequest | undefined,
  err: (text: string) => void,
): void {
  if (!lock?.wait) return;
  const handle = client.workflow.getHandle(workflowId);
  void (async () => {
    // Until the worker has run the workflow's first task there is no answer yet: keep asking.
    for (let asked = 0; asked < 120; asked += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1_000).unref());
      const status = await bounded(client, 2_000, () => handle.query(statusQuery)).catch(() => undefined);
      if (status === undefined) continue;
      if (!status.lock || status.lock.state === 'held' || status.result) return;
      if (status.lock.holder) {
        err(
          `note: waiting for scope ${status.lock.scopes.join(', ')} behind ${status.lock.holder} (--queue); see the queue with ll-loop queue list\n`,
        );
        return;
      }
    }
  })();
}

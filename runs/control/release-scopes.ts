/**
 * Give back the scopes of a run that was terminated (`ll-loop stop --force`). A terminated run
 * runs no more code, so it never sends its own release; the lock workflow would free its scopes
 * only at its next liveness check (up to 15 s later), and a run started or resumed meanwhile would
 * be denied them, named as held by a run that no longer exists. The command that terminated it
 * sends the release in its place, as the run itself would have (Temporal's mutex sample): the
 * lock hears it before any request sent after, so the next run is granted.
 */
import type { Client } from '@temporalio/client';
import { startInputOf } from '../resume/resumable.js';
import { scopeReleaseSignal } from '../../workflows/scope-lock-definitions.js';

/**
 * Release the scopes closed run `id` asked for, if it asked for any. Returns the lock workflow
 * told, or undefined when the run took no lock. A lock workflow that is gone holds nothing of the
 * run's (a fresh one rebuilds its holders from running runs only), so that is no error.
 */
export async function releaseScopesOf(client: Client, id: string): Promise<string | undefined> {
  const lock = (await startInputOf(client, id))?.lock;
  if (!lock) return undefined;
  await client.workflow
    .getHandle(lock.workflowId)
    .signal(scopeReleaseSignal, { run: id })
    .catch((err: unknown) => {
      if ((err as Error).name === 'WorkflowNotFoundError') return;
      throw err;
    });
  return lock.workflowId;
}

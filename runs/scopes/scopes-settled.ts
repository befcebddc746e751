/**
 * A run started in the background (`run --background`, `resume --background`, `rerun
 * --background`) that would not wait for its scopes is told by its scope lock at once whether it
 * has them. The precheck (scope-lock.ts) refuses most busy starts before anything is created, but
 * not all: two runs starting at the same moment, or a lock workflow that had to rebuild its
 * holders. Such a run then fails within moments with `ScopeBusy`; the command that started it
 * waits for that answer and reports it (exit 8, naming the scope, the holder and the fix), rather
 * than printing "started … in the background" for a run that never began.
 */
import type { Client } from '@temporalio/client';
import { closedFailure } from '../find/closed-failure.js';
import { SCOPE_BUSY } from '../../workflows/scope-busy.js';
import { SCOPE_LOCK_MEMO_KEY, type ScopeBusyDetails } from '../../workflows/scope-lock-definitions.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import { ScopeBusyError } from './scope-busy-error.js';
import { removeRunEnv } from '../../host/run-env.js';

/**
 * How long the command waits for the lock's answer. A run that would not wait is answered within
 * moments (one round trip through the lock workflow); past this the command says what it knows:
 * the run started (it holds nothing yet, or its worker is slow), as before.
 */
const SETTLE_TIMEOUT_MS = 10_000;
const LOOK_MS = 100;

/**
 * Resolves once run `id` holds its scopes (its memo says so), is closed for another reason, or
 * `timeoutMs` passed; throws ScopeBusyError when the lock denied it. A run that waits for its
 * scopes (`--queue`), or took no lock, is not waited for.
 */
export async function scopesSettled(
  client: Client,
  id: string,
  lock: ScopeLockRequest | undefined,
  timeoutMs = SETTLE_TIMEOUT_MS,
): Promise<void> {
  if (lock === undefined || lock.wait) return;
  const handle = client.workflow.getHandle(id);
  const until = Date.now() + timeoutMs;
  for (;;) {
    // The run has started whatever this look says: an error reading it is not the start's.
    const description = await handle.describe().catch(() => undefined);
    if (description === undefined) return;
    if (description.memo?.[SCOPE_LOCK_MEMO_KEY] !== undefined) return;
    if (description.status.name !== 'RUNNING') break;
    if (Date.now() >= until) return;
    await new Promise((r) => setTimeout(r, LOOK_MS));
  }
  const busy = await closedFailure(handle).catch(() => undefined);
  if (busy?.type !== SCOPE_BUSY) return;
  // It never began: the copy of its command's environment (secrets included) goes now.
  removeRunEnv(id);
  throw ScopeBusyError.fromFailure(id, busy.message, busy.details as ScopeBusyDetails | undefined);
}

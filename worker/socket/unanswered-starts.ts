/**
 * The starts made through the checkout's worker (queued `run --background` ones, and `run`'s
 * early starts) whose scope lock has not answered them yet.
 *
 * The precheck before a start reads the lock workflow's memo, which shows a run only once the lock
 * has handled its request. Two starts of overlapping scopes a moment apart (a script starting a
 * batch, two terminals) both pass it; the lock then grants one and denies the other. A start
 * followed by its command reports that denial, but a queued `--background` one has long been
 * answered "started": the run never began and nobody was told. So the worker counts its own starts
 * until the lock has answered them, and refuses a later start behind one of them as the precheck
 * refuses one behind a holder (exit 8, naming it). Runs that wait (`--queue`) are never refused.
 */
import type { Client } from '@temporalio/client';
import type { Blocker } from '../../fsm/run/scope-queue.js';
import { claimsOverlap } from '../../fsm/scopes.js';
import type { ScopeLockRequest } from '../../workflows/definitions.js';
import { busyBefore } from '../../runs/scopes/scope-lock.js';
import { scopesSettled } from '../../runs/scopes/scopes-settled.js';
import type { Checkout } from '../../host/checkout.js';
import { lockOf } from '../../runs/start/start-requested.js';
import type { WorkerStartRequest } from '../../runs/transport/schemas.js';

/** One counted start. */
export interface StartTicket {
  /**
   * The start was made as run `id`: counted until its lock has answered it (granted, denied, or
   * 10 s passed; one that waits, for 2 s). Rejects with the ScopeBusyError of a denial.
   */
  started(id: string): Promise<void>;
  /** The start's run id is decided: refusals behind it name that. */
  rename(id: string): void;
  /** It was not started (failed, or left to the next worker): no longer counted. */
  drop(): void;
}

/** How long a start that waits for its scopes is counted once made: its request reaches the lock within it. */
const WAITER_COUNTED_MS = 2_000;

const NOT_COUNTED: StartTicket = { started: async () => undefined, rename: () => undefined, drop: () => undefined };

export class UnansweredStarts {
  private readonly starts = new Map<symbol, { run: string; lock: ScopeLockRequest }>();

  constructor(private readonly client: Client) {}

  /**
   * Count a start of run `run` (its id, or the id base while the id is not decided) that asks for
   * `lock`. Unless `check` is false or it waits for its scopes, a start whose scopes overlap a
   * counted one is refused first: ScopeBusyError, as the precheck's.
   */
  reserve(run: string, lock: ScopeLockRequest | undefined, check = true): StartTicket {
    if (lock === undefined) return NOT_COUNTED;
    if (check && !lock.wait) {
      const blockers: Blocker[] = [...this.starts.values()]
        .filter((s) => s.lock.workflowId === lock.workflowId && claimsOverlap(s.lock.scopes, lock.scopes))
        .map((s) => ({ run: s.run, scopes: s.lock.scopes, holds: false }));
      if (blockers.length) throw busyBefore(lock, blockers);
    }
    const key = Symbol(run);
    const entry = { run, lock };
    this.starts.set(key, entry);
    return {
      started: (id) => {
        entry.run = id;
        // One that waits (--queue) may wait long without holding anything: not watched, it is
        // counted for a moment, by the end of which the lock has it among its waiters (which the
        // precheck reads); a batch of waiting runs costs the server no looks.
        if (lock.wait) {
          setTimeout(() => this.starts.delete(key), WAITER_COUNTED_MS).unref();
          return Promise.resolve();
        }
        return scopesSettled(this.client, id, lock).finally(() => this.starts.delete(key));
      },
      rename: (id) => void (entry.run = id),
      drop: () => void this.starts.delete(key),
    };
  }

  /**
   * Make `start`, a start of `r` its command follows (the command reports a denial itself),
   * counted while its lock has not answered it; refused first behind a counted one.
   */
  async followed<T extends { instance_id: string }>(
    r: Pick<WorkerStartRequest, 'id_base' | 'definition' | 'lock'>,
    checkout: Checkout,
    start: () => Promise<T>,
  ): Promise<T> {
    const ticket = this.reserve(r.id_base, lockOf(r, checkout));
    try {
      const started = await start();
      void ticket.started(started.instance_id).catch(() => undefined);
      return started;
    } catch (err) {
      ticket.drop();
      throw err;
    }
  }

  /** How many starts are counted (tests). */
  get size(): number {
    return this.starts.size;
  }
}

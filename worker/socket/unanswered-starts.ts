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
 *
 * The count follows each run by looking at it (scopes-settled.ts), which a busy machine can leave
 * behind: a run that has long ended, or holds its scopes, may still be counted when the next start
 * comes (a command run right after another one of the same checkout). So before refusing, the
 * worker looks at the counted runs in the way once more: one that has ended or holds its scopes
 * has had its answer and is no longer counted (a holder is then the lock's memo's, which the
 * precheck reads); only a start still without its answer refuses the new one.
 */
import type { Client } from '@temporalio/client';
import { SCOPE_LOCK_MEMO_KEY } from '../../workflows/scope-lock-definitions.js';
import { bounded } from '../../runs/find/run-target.js';
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
/** How long the look at a counted run may take; one not seen within it counts as unanswered. */
const LOOK_TIMEOUT_MS = 2_000;

/**
 * Whether run `id` has had its lock's answer: it has ended, or it holds its scopes (its memo says
 * so). A run not seen (not started yet, no answer in time) has not.
 */
async function answered(client: Client, id: string): Promise<boolean> {
  try {
    const d = await bounded(client, LOOK_TIMEOUT_MS, () => client.workflow.getHandle(id).describe());
    return d.status.name !== 'RUNNING' || d.memo?.[SCOPE_LOCK_MEMO_KEY] !== undefined;
  } catch {
    return false;
  }
}

interface Counted {
  run: string;
  lock: ScopeLockRequest;
}

const blocker = (s: Counted): Blocker => ({ run: s.run, scopes: s.lock.scopes, holds: false });

const NOT_COUNTED: StartTicket = { started: async () => undefined, rename: () => undefined, drop: () => undefined };

export class UnansweredStarts {
  private readonly starts = new Map<symbol, Counted>();

  constructor(private readonly client: Client) {}

  /**
   * Count a start of run `run` (its id, or the id base while the id is not decided) that asks for
   * `lock`. Unless `check` is false or it waits for its scopes, a start whose scopes overlap a
   * counted one is refused first: ScopeBusyError, as the precheck's.
   */
  reserve(run: string, lock: ScopeLockRequest | undefined, check = true): StartTicket {
    if (lock === undefined) return NOT_COUNTED;
    if (check) {
      const inWay = this.inWay(lock);
      if (inWay.length)
        throw busyBefore(
          lock,
          inWay.map(([, s]) => blocker(s)),
        );
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
   * As {@link reserve}, after a look at the counted runs in the way: those that have had their
   * answer are no longer counted, and `again` (the precheck, which now sees a run that holds) is
   * made once more before the start is counted. Refused only behind a start still unanswered.
   */
  async reserveAfterLook(
    run: string,
    lock: ScopeLockRequest | undefined,
    again: () => Promise<void> = async () => undefined,
  ): Promise<StartTicket> {
    if (lock === undefined) return NOT_COUNTED;
    for (;;) {
      const inWay = this.inWay(lock);
      if (inWay.length === 0) return this.reserve(run, lock);
      const looks = await Promise.all(inWay.map(([, s]) => answered(this.client, s.run)));
      if (!looks.some(Boolean))
        throw busyBefore(
          lock,
          inWay.map(([, s]) => blocker(s)),
        );
      inWay.forEach(([key], i) => looks[i] && this.starts.delete(key));
      await again();
    }
  }

  /** The counted starts a start asking for `lock` would be refused behind (none for one that waits). */
  private inWay(lock: ScopeLockRequest): Array<[symbol, Counted]> {
    if (lock.wait) return [];
    return [...this.starts].filter(
      ([, s]) => s.lock.workflowId === lock.workflowId && claimsOverlap(s.lock.scopes, lock.scopes),
    );
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
    const ticket = await this.reserveAfterLook(r.id_base, lockOf(r, checkout));
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

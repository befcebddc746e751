/**
 * The guard's "before" listing, made ahead (`tamper_guard:`, activities/tamper-guard.ts). A
 * guarded action (an agent's fix) comes after the loop's check, and between the two the run's
 * workflow task goes through the server (10–20 ms) while nothing runs in the checkout. So once a
 * check ends in a checkout where a guarded action ran lately, its files are listed at once, in
 * the action spawner, and the guarded action that starts next takes that listing instead of
 * making its own (a `git ls-files` of 4–6 ms on its path). Only the listing: the files' contents
 * are still read when the guarded action starts.
 *
 * The listing stands for "the files before the guarded action" only while nothing of this worker
 * ran since it began: every process-running activity of the worker counts itself in
 * ({@link ListingAhead.enter}) and drops it; and none is made while another such activity runs.
 * What others (a person, another program) do to the checkout in those milliseconds is theirs, as
 * it is during the agent's own minutes.
 */

/** A checkout's files, relative; undefined when git cannot list them (activities/checkout-files.ts). */
type Listing = Promise<string[] | undefined>;

/** A checkout whose guarded action ended longer ago than this has no listing made ahead. */
const GUARDED_LATELY_MS = 60 * 60 * 1000;
/** Checkouts remembered as guarded at most (the oldest is forgotten first). */
const MAX_GUARDED_CHECKOUTS = 64;

export class ListingAhead {
  /** Process-running activities started so far in this worker. */
  private started = 0;
  private running = 0;
  private ahead: { cwd: string; started: number; listing: Listing } | undefined;
  /** When a guarded action last ended in each checkout (epoch ms), oldest first. */
  private readonly guardedAt = new Map<string, number>();

  /**
   * `list`: lists a checkout in the action spawner, or gives undefined when the spawner is not up
   * (a listing forked from the worker would hold its main thread: none is made ahead then).
   */
  constructor(
    private readonly list: (cwd: string) => Listing | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** A process-running activity starts: the listing made ahead no longer stands for "now". */
  enter(): void {
    this.ahead = undefined;
    this.started += 1;
    this.running += 1;
  }

  /**
   * A guarded action starts in `cwd`: what was listed ahead there, when nothing started since it
   * was made, else undefined; it is counted in as {@link enter} counts any.
   */
  enterGuarded(cwd: string): Listing | undefined {
    const ahead = this.ahead;
    this.enter();
    return ahead?.cwd === cwd && ahead.started === this.started - 1 ? ahead.listing : undefined;
  }

  /**
   * It ended. `cwd`: where a check ran, whose next action may be a guarded one; `guarded`: it was
   * itself a guarded action (its checkout is then listed ahead after its later checks).
   */
  leave(cwd?: string, guarded = false): void {
    this.running = Math.max(0, this.running - 1);
    if (cwd === undefined) return;
    if (guarded) {
      this.guardedAt.delete(cwd);
      this.guardedAt.set(cwd, this.now());
      if (this.guardedAt.size > MAX_GUARDED_CHECKOUTS) this.guardedAt.delete(this.guardedAt.keys().next().value!);
      return;
    }
    const at = this.guardedAt.get(cwd);
    if (this.running > 0 || at === undefined || this.now() - at > GUARDED_LATELY_MS) return;
    const listing = this.list(cwd);
    if (listing === undefined) return;
    // Taken or not, a failed listing is no one's fault: the guarded action lists for itself.
    const kept = listing.catch(() => undefined);
    this.ahead = { cwd, started: this.started, listing: kept };
  }

  /** `fn` counted in as a process-running activity (no listing is made after it). */
  around<I extends unknown[], O>(fn: (...args: I) => Promise<O>): (...args: I) => Promise<O> {
    return async (...args) => {
      this.enter();
      try {
        return await fn(...args);
      } finally {
        this.leave();
      }
    };
  }
}

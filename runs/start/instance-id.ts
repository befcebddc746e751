/** A run's instance id, without the Temporal SDK (start-through-worker.ts needs it before the start). */

/** Seed 001's instance ids: `<loop>-<YYYYMMDDTHHMMSS>` (local time), `-2`, `-3`… on a clash. */
export function instanceIdFor(loop: string, date: Date, attempt = 0): string {
  return withSuffix(idBaseAt(loop, localStamp(date)), attempt);
}

/** `YYYYMMDDTHHMMSS` in this process's time zone: the command's, wherever the id is made. */
export function localStamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}T${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}

/** The id base of `loop` started at `stamp` ({@link localStamp}). */
export function idBaseAt(loop: string, stamp: string): string {
  return `${loop.replace(/[^A-Za-z0-9._-]+/g, '-')}-${stamp}`;
}

/** The id of a base's `attempt`: the base itself first, then `-2`, `-3`… */
export function withSuffix(base: string, attempt: number): string {
  return attempt === 0 ? base : `${base}-${attempt + 1}`;
}

/** Bases this process remembers: those of the last few seconds are all that can clash again. */
const REMEMBERED_BASES = 64;
const nextAttempt = new Map<string, number>();

/**
 * The attempt this process tries next for an id base, taken at once so that two starts in flight
 * never try the same one. The checkout's worker starts every `ll-loop run` of its checkout: forty
 * runs of one loop in one second then take `-2`…`-40` in turn, instead of each trying every id the
 * others took before it (a start refused for a taken id is a round trip). Starts from other
 * processes can still take an id first; the caller tries the next one then.
 */
export function claimAttempt(base: string): number {
  const attempt = nextAttempt.get(base) ?? 0;
  nextAttempt.delete(base); // re-inserted last: the map's order is the bases' recency
  nextAttempt.set(base, attempt + 1);
  if (nextAttempt.size > REMEMBERED_BASES) nextAttempt.delete(nextAttempt.keys().next().value as string);
  return attempt;
}

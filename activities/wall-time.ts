/**
 * Wall-clock times in a named IANA zone, with nothing but `Intl` (worker side only: the workflow
 * never reads a clock). Used to turn "resets at 3pm (America/Bogota)" into an instant.
 */

/** A calendar date in a zone, and the way back from a wall-clock time there to an instant. */
export interface ZonedDay {
  year: number;
  /** 0-based, like Date. */
  month: number;
  day: number;
  /** The instant (epoch ms) of a wall-clock time in this zone; undefined for an impossible date. */
  toEpoch(t: { year: number; month: number; day: number; hour: number; minute: number }): number | undefined;
}

/** Today's date in `zone` at instant `now`, or undefined when the zone is unknown. */
export function wallTimeIn(zone: string, now: number): ZonedDay | undefined {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    return undefined; // RangeError: not a zone this runtime knows
  }
  /** The zone's wall clock at `epoch`, read as if it were UTC, minus `epoch`: the zone's offset. */
  const offset = (epoch: number): number => {
    const parts = Object.fromEntries(format.formatToParts(new Date(epoch)).map((p) => [p.type, p.value]));
    const asUtc = Date.UTC(
      Number(parts['year']),
      Number(parts['month']) - 1,
      Number(parts['day']),
      Number(parts['hour']),
      Number(parts['minute']),
      Number(parts['second']),
    );
    return asUtc - Math.floor(epoch / 1000) * 1000;
  };
  const local = new Date(now + offset(now));
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth(),
    day: local.getUTCDate(),
    toEpoch: ({ year, month, day, hour, minute }) => {
      const guess = Date.UTC(year, month, day, hour, minute);
      const check = new Date(guess);
      if (check.getUTCMonth() !== month || check.getUTCDate() !== day) return undefined;
      // Twice: the offset at the first estimate may differ across a DST change.
      const first = guess - offset(guess);
      return guess - offset(first);
    },
  };
}

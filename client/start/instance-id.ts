/** A run's instance id, without the Temporal SDK (start-through-worker.ts needs it before the start). */

/** Seed 001's instance ids: `<loop>-<YYYYMMDDTHHMMSS>` (local time), `-2`, `-3`… on a clash. */
export function instanceIdFor(loop: string, date: Date, attempt = 0): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}T${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
  const safe = loop.replace(/[^A-Za-z0-9._-]+/g, '-');
  return attempt === 0 ? `${safe}-${stamp}` : `${safe}-${stamp}-${attempt + 1}`;
}

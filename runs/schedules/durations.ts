/** Duration flags (`--every`, `--queue-timeout`, `--retention`), without the Temporal SDK (`run` parses one). */
import { UsageError } from '../../errors/errors.js';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration flag → milliseconds: one or more `<number><unit>` with units s, m, h, d
 * (`90s`, `15m`, `1h30m`, `1d`); at least one second. `flag` names it in errors.
 */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== trimmed) {
    throw new UsageError(`${flag} "${text}" is not a duration`, 'write a number and a unit: 30s, 15m, 1h, 1h30m, 1d');
  }
  const ms = parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_MS[unit!]!, 0);
  if (ms < 1_000) throw new UsageError(`${flag} "${text}" is shorter than one second`, 'use at least 1s');
  return Math.round(ms);
}

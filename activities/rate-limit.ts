/**
 * Recognising a rate limit, an overloaded API or a spent usage quota in what an agent call left:
 * the host CLI's output when it exits non-zero. The answer is a fact (fsm/types.ts RateLimitFact);
 * how long to pause is the core's decision (fsm/run/rate-limit.ts).
 *
 * Only a failed call is read — a non-zero exit, or a JSON envelope with `is_error: true` (headless
 * `claude -p` reports an API rate limit with exit 0 and `"is_error": true`, anthropics/claude-code
 * #79500): an agent that succeeded while *talking about* rate limits (fixing a 429 handler, say)
 * did its work. Only the last few KiB are read: the host CLI's own message ends its output.
 *
 * Known forms (Claude Code):
 * - `Claude AI usage limit reached|1767225600` (the reset as epoch seconds);
 * - `Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).`;
 * - `You've hit your limit · resets Apr 23 at 4pm (America/Recife)`;
 * - `API Error: 429 {"type":"error","error":{"type":"rate_limit_error",…}}`, and
 *   `overloaded_error` / 529 for an overloaded API.
 */
import type { RateLimitFact } from '../fsm/types.js';
import { providerRateLimit } from './llm-provider-call.js';
import { wallTimeIn } from './wall-time.js';

/** How much of the end of stdout and stderr is searched. */
const TAIL_CHARS = 4096;
/** The longest message kept in the fact (and so in history). */
const MESSAGE_CHARS = 300;

const EPOCH_FORM = /usage limit reached\|(\d{10,13})/i;
const QUOTA_FORM = /(usage limit reached|hit your (?:usage )?limit|limit will reset|quota (?:exceeded|reached))/i;
/** "resets Apr 23 at 4pm (America/Recife)", "reset at 3pm (America/Bogota)", "resets 10:30am". */
const RESET_FORM =
  /resets?\s+(?:at\s+)?(?:(?<month>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?<day>\d{1,2})(?:,?\s+\d{4})?\s+at\s+)?(?<hour>\d{1,2})(?::(?<minute>\d{2}))?\s*(?<ampm>am|pm)?(?:\s*\((?<zone>[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*)\))?/i;
const OVERLOADED_FORM = /(overloaded_error|\b529\b.*overloaded|overloaded.*\b529\b)/i;
const RATE_FORM =
  /(rate_limit_error|API Error:\s*429|\b429\b[^\n]*too many requests|rate limit(?:ed| exceeded| reached))/i;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

export interface DetectOptions {
  /**
   * Whether the call failed: a non-zero exit, or an error envelope (activities/host-envelope.ts).
   * A successful call is never a rate limit.
   */
  failed: boolean;
  /** The worker's clock (epoch ms), for reset times given as a wall-clock time. */
  now: number;
  /** In [0, 1): the backoff's jitter, drawn by the caller. */
  jitter: number;
  /** The zone of a reset time that names none (default: the worker's own). */
  defaultZone?: string;
}

/** The rate limit or quota the host CLI reported, if its output says one. */
export function hostRateLimit(stdout: string, stderr: string, o: DetectOptions): RateLimitFact | undefined {
  if (!o.failed) return undefined;
  const text = `${stdout.slice(-TAIL_CHARS)}\n${stderr.slice(-TAIL_CHARS)}`;
  const epoch = EPOCH_FORM.exec(text);
  if (epoch) {
    const n = Number(epoch[1]);
    return fact('quota', lineAround(text, epoch.index), o.jitter, { resets_at_ms: n < 1e12 ? n * 1000 : n });
  }
  const quota = QUOTA_FORM.exec(text);
  if (quota) {
    const resets = resetTime(text, o);
    return fact('quota', lineAround(text, quota.index), o.jitter, resets === undefined ? {} : { resets_at_ms: resets });
  }
  const overloaded = OVERLOADED_FORM.exec(text);
  if (overloaded) return fact('overloaded', lineAround(text, overloaded.index), o.jitter, retryAfter(text));
  const rate = RATE_FORM.exec(text);
  if (rate) return fact('rate_limit', lineAround(text, rate.index), o.jitter, retryAfter(text));
  return undefined;
}

function fact(
  kind: RateLimitFact['kind'],
  message: string,
  jitter: number,
  when: Pick<RateLimitFact, 'resets_at_ms' | 'retry_after_ms'>,
): RateLimitFact {
  return { kind, message, jitter, ...when };
}

/** `retry-after: 30` (seconds) in the output, as the API sent it. */
function retryAfter(text: string): Pick<RateLimitFact, 'retry_after_ms'> {
  const m = /retry[-_ ]after["']?\s*[:=]\s*"?(\d+(?:\.\d+)?)/i.exec(text);
  return m ? { retry_after_ms: Math.round(Number(m[1]) * 1000) } : {};
}

/** The line holding `index`, without control text, at most MESSAGE_CHARS long. */
function lineAround(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index);
  // eslint-disable-next-line no-control-regex -- control text is exactly what is removed
  const line = text
    .slice(start, end === -1 ? undefined : end)
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .trim();
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS - 1)}…` : line;
}

/**
 * The announced reset as epoch ms: the next time the named wall-clock time comes in its zone
 * (or on the named day, this year or — when that day has passed by more than a day — next year).
 */
function resetTime(text: string, o: DetectOptions): number | undefined {
  const m = RESET_FORM.exec(text);
  const g = m?.groups;
  if (!g?.['hour']) return undefined;
  let hour = Number(g['hour']);
  const minute = g['minute'] ? Number(g['minute']) : 0;
  const ampm = g['ampm']?.toLowerCase();
  if (ampm && (hour < 1 || hour > 12)) return undefined;
  if (ampm === 'pm' && hour !== 12) hour += 12;
  if (ampm === 'am' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) return undefined;
  const zone = g['zone'] ?? o.defaultZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const today = wallTimeIn(zone, o.now);
  if (today === undefined) return undefined;
  if (g['month']) {
    const month = MONTHS.indexOf(g['month'].slice(0, 3).toLowerCase());
    const day = Number(g['day']);
    const at = (year: number): number | undefined => today.toEpoch({ year, month, day, hour, minute });
    const thisYear = at(today.year);
    if (thisYear === undefined) return undefined;
    return thisYear < o.now - 86_400_000 ? at(today.year + 1) : thisYear;
  }
  const candidate = today.toEpoch({ year: today.year, month: today.month, day: today.day, hour, minute });
  if (candidate === undefined) return undefined;
  // A time of day already past today means tomorrow's (a wall-clock day; DST shifts are ignored).
  return candidate <= o.now ? candidate + 86_400_000 : candidate;
}

/**
 * The rate limit an API provider's error reply reports (HTTP 429/529, `rate_limit_error`,
 * `overloaded_error`: activities/llm-provider-call.ts recognises them), as a fact with its jitter.
 */
export function providerLimitFact(
  error: string,
  details: Record<string, unknown>,
  jitter: number,
): RateLimitFact | undefined {
  const limit = providerRateLimit({ ...details, error });
  return limit === undefined ? undefined : { ...limit, jitter };
}

import { describe, expect, it } from 'vitest';
import { fromEnvelope, parseEnvelope } from '../../activities/host-envelope.js';
import { hostRateLimit } from '../../activities/rate-limit.js';
import { wallTimeIn } from '../../activities/wall-time.js';

// 2026-04-20T12:00:00Z, a Monday.
const NOW = Date.UTC(2026, 3, 20, 12, 0, 0);
const opts = { failed: true, now: NOW, jitter: 0.25 };

describe('hostRateLimit', () => {
  it('reads the epoch form of a spent usage quota (seconds)', () => {
    const f = hostRateLimit('Claude AI usage limit reached|1776700800\n', '', opts);
    expect(f).toEqual({
      kind: 'quota',
      message: 'Claude AI usage limit reached|1776700800',
      jitter: 0.25,
      resets_at_ms: 1776700800_000,
    });
  });

  it('reads "will reset at 3pm (America/Bogota)" as the next 15:00 in Bogota (UTC-5)', () => {
    const f = hostRateLimit('', 'Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).', opts);
    expect(f?.kind).toBe('quota');
    expect(f?.resets_at_ms).toBe(Date.UTC(2026, 3, 20, 20, 0));
  });

  it('takes tomorrow when the time of day has passed', () => {
    const f = hostRateLimit('Claude usage limit reached. Your limit will reset at 6am (America/Bogota).', '', opts);
    expect(f?.resets_at_ms).toBe(Date.UTC(2026, 3, 21, 11, 0));
  });

  it('reads "resets Apr 23 at 4pm (America/Recife)" (UTC-3)', () => {
    const f = hostRateLimit("You've hit your limit · resets Apr 23 at 4pm (America/Recife)", '', opts);
    expect(f).toMatchObject({ kind: 'quota', resets_at_ms: Date.UTC(2026, 3, 23, 19, 0) });
    expect(f?.message).toContain("You've hit your limit");
  });

  it('reads a date that has passed as next year', () => {
    const f = hostRateLimit("You've hit your limit · resets Jan 2 at 10:30am (UTC)", '', opts);
    expect(f?.resets_at_ms).toBe(Date.UTC(2027, 0, 2, 10, 30));
  });

  it('uses the given default zone for a time without one', () => {
    const f = hostRateLimit('usage limit reached, resets 3pm', '', { ...opts, defaultZone: 'Europe/Berlin' });
    expect(f?.resets_at_ms).toBe(Date.UTC(2026, 3, 20, 13, 0)); // CEST, UTC+2
  });

  it('keeps a quota without a readable reset time (the core backs off)', () => {
    const f = hostRateLimit('Claude usage limit reached. Your limit will reset at 3pm (Mars/Olympus).', '', opts);
    expect(f).toMatchObject({ kind: 'quota' });
    expect(f?.resets_at_ms).toBeUndefined();
  });

  it('recognises an API 429 with rate_limit_error', () => {
    const out =
      'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}';
    const f = hostRateLimit(out, '', opts);
    expect(f?.kind).toBe('rate_limit');
    expect(f?.resets_at_ms).toBeUndefined();
    expect(f?.message.startsWith('API Error: 429')).toBe(true);
  });

  it('recognises an overloaded API and a retry-after it names', () => {
    const f = hostRateLimit(
      '',
      'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} retry-after: 20',
      opts,
    );
    expect(f).toMatchObject({ kind: 'overloaded', retry_after_ms: 20_000 });
  });

  it('never reads a successful call, whatever it printed', () => {
    expect(
      hostRateLimit('fixed the rate_limit_error handler; API Error: 429 is now retried', '', {
        ...opts,
        failed: false,
      }),
    ).toBeUndefined();
  });

  it('reads an ordinary failure as no rate limit', () => {
    expect(hostRateLimit('Error: tests failed\n3 failing', 'exit 1', opts)).toBeUndefined();
  });

  it('reads only the end of a huge output, and keeps the message to a line', () => {
    const f = hostRateLimit(`${'x'.repeat(5_000_000)}\nAPI Error: 429 rate_limit_error ${'y'.repeat(1000)}`, '', opts);
    expect(f?.kind).toBe('rate_limit');
    expect(f!.message.length).toBeLessThanOrEqual(300);
    expect(hostRateLimit(`API Error: 429 rate_limit_error\n${'x'.repeat(10_000)}`, '', opts)).toBeUndefined();
  });

  it('strips control text from the message', () => {
    const f = hostRateLimit('\u001b[31mAPI Error: 429 rate_limit_error\u0007', '', opts);
    expect(f?.message).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('an error envelope (headless claude -p reports an API rate limit with exit 0 and is_error)', () => {
  const envelope = {
    type: 'result',
    subtype: 'success',
    is_error: true,
    duration_api_ms: 0,
    result: 'API Error: Rate limit reached',
    total_cost_usd: 0,
  };
  it('is a failed prompt run whose text is the rate limit', () => {
    const run = fromEnvelope({ output: JSON.stringify(envelope), stderr: '', exit_code: 0, duration_ms: 3 });
    expect(run.exit_code).toBe(1);
    expect(hostRateLimit(run.output, run.stderr, { ...opts, failed: run.exit_code !== 0 })).toMatchObject({
      kind: 'rate_limit',
      message: 'API Error: Rate limit reached',
    });
  });
  it('is read from the result message of the --verbose array form', () => {
    const parsed = parseEnvelope(JSON.stringify([{ type: 'system', subtype: 'init' }, envelope]));
    expect(parsed).toMatchObject({ isError: true, text: 'API Error: Rate limit reached' });
  });
  it('a successful envelope that talks about rate limits is no rate limit', () => {
    const run = fromEnvelope({
      output: JSON.stringify({
        ...envelope,
        is_error: false,
        result: 'Fixed: API Error: Rate limit reached is now retried',
      }),
      stderr: '',
      exit_code: 0,
      duration_ms: 3,
    });
    expect(hostRateLimit(run.output, run.stderr, { ...opts, failed: run.exit_code !== 0 })).toBeUndefined();
  });
});

describe('wallTimeIn', () => {
  it('converts across a DST change (New York, 2026-03-08)', () => {
    const day = wallTimeIn('America/New_York', Date.UTC(2026, 2, 8, 12))!;
    expect(day.toEpoch({ year: 2026, month: 2, day: 8, hour: 1, minute: 0 })).toBe(Date.UTC(2026, 2, 8, 6, 0)); // EST
    expect(day.toEpoch({ year: 2026, month: 2, day: 8, hour: 15, minute: 0 })).toBe(Date.UTC(2026, 2, 8, 19, 0)); // EDT
  });
  it('knows no zone it cannot resolve', () => {
    expect(wallTimeIn('Nowhere/Atlantis', NOW)).toBeUndefined();
  });
  it('rejects an impossible date', () => {
    expect(wallTimeIn('UTC', NOW)!.toEpoch({ year: 2026, month: 1, day: 31, hour: 0, minute: 0 })).toBeUndefined();
  });
});

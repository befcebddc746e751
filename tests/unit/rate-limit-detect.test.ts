import { describe, expect, it } from 'vitest';
import { callFailed, hostRateLimit } from '../../activities/rate-limit.js';
import { wallTimeIn } from '../../activities/wall-time.js';

// 2026-04-20T12:00:00Z, a Monday.
const NOW = Date.UTC(2026, 3, 20, 12, 0, 0);
const opts = { failed: true, now: NOW, jitter: 0.25 };

describe('hostRateLimit', () => {
  it('reads the epoch form of a spent usage quota (seconds)', () => {
    const f = hostRateLimit('Claude AI usage limit reached|1776700800\n', '', opts);
    expect(f).toEqual({ kind: 'quota', message: 'Claude AI usage limit reached|1776700800', jitter: 0.25, resets_at_ms: 1776700800_000 });
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
    const out = 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}';
    const f = hostRateLimit(out, '', opts);
    expect(f?.kind).toBe('rate_limit');
    expect(f?.resets_at_ms).toBeUndefined();
    expect(f?.message.startsWith('API Error: 429')).toBe(true);
  });

  it('recognises an overloaded API and a retry-after it names', () => {
    const f = hostRateLimit('', 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}} retry-after: 20', opts);
    expect(f).toMatchObject({ kind: 'overloaded', retry_after_ms: 20_000 });
  });

  it('never reads a successful call, whatever it printed', () => {
    expect(hostRateLimit('fixed the rate_limit_error handler; API Error: 429 is now retried', '', { ...opts, failed: false })).toBeUndefined();
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

describe('callFailed', () => {
  it('is a non-zero exit', () => {
    expect(callFailed(1, 'whatever')).toBe(true);
  });
  it('is an envelope with is_error, even with exit 0 (headless claude -p reports API errors so)', () => {
    const envelope = { type: 'result', subtype: 'success', is_error: true, duration_api_ms: 0, result: 'API Error: Rate limit reached', total_cost_usd: 0 };
    expect(callFailed(0, JSON.stringify(envelope))).toBe(true);
    expect(hostRateLimit(JSON.stringify(envelope), '', { ...opts, failed: callFailed(0, JSON.stringify(envelope)) })?.kind).toBe('rate_limit');
  });
  it('reads the result item of an array of messages', () => {
    const items = [{ type: 'system', subtype: 'init' }, { type: 'result', subtype: 'success', is_error: true, result: 'API Error: Rate limit reached' }];
    expect(callFailed(0, JSON.stringify(items))).toBe(true);
  });
  it('is not a successful envelope or plain text', () => {
    expect(callFailed(0, JSON.stringify({ type: 'result', is_error: false, result: 'rate limit reached' }))).toBe(false);
    expect(callFailed(0, 'API Error: Rate limit reached')).toBe(false);
    expect(callFailed(0, '{not json')).toBe(false);
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

/**
 * little-loops' per-state rate-limit fields in the pure core (fsm/run/rate-limit.ts):
 * rate_limit_backoff_base_seconds, rate_limit_max_wait_seconds, max_rate_limit_retries and
 * on_rate_limit_exhausted. A loop written here; the rate limit is the worker's fact.
 */
import { describe, expect, it } from 'vitest';
import type { RateLimitFact } from '../../fsm/types.js';
import { begin, def, loop, next } from './helpers.js';

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const LIMITED: RateLimitFact = { kind: 'rate_limit', message: 'API Error: 429 rate_limit_error', jitter: 1 };
const limited = { output: LIMITED.message, stderr: '', exit_code: 1, duration_ms: 5, rate_limit: LIMITED };

const agent = (fields: Record<string, unknown>) =>
  def(
    loop({
      ask: { action: 'do it', action_type: 'prompt', next: 'done', ...fields },
      limited_out: { terminal: true, failure: true },
    }),
  );

describe('per-state rate-limit fields', () => {
  it('rate_limit_backoff_base_seconds is the first pause (doubled after)', () => {
    const d = agent({ rate_limit_backoff_base_seconds: 5 });
    const first = next(d, begin(d, T0), { type: 'action_done', result: limited, now: T0 });
    expect(first.effect).toMatchObject({ type: 'sleep', ms: 5_000, reason: 'rate_limit' });
    const again = next(d, first, { type: 'sleep_done', now: T0 + 5_000 });
    const second = next(d, again, { type: 'action_done', result: limited, now: T0 + 6_000 });
    expect(second.effect).toMatchObject({ type: 'sleep', ms: 10_000 });
  });

  it('max_rate_limit_retries pauses, then on_rate_limit_exhausted', () => {
    const d = agent({ max_rate_limit_retries: 2, on_rate_limit_exhausted: 'limited_out' });
    let t = begin(d, T0);
    let now = T0;
    for (let pause = 1; pause <= 2; pause += 1) {
      t = next(d, t, { type: 'action_done', result: limited, now });
      expect(t.effect).toMatchObject({ type: 'sleep', reason: 'rate_limit' });
      now += 60_000;
      t = next(d, t, { type: 'sleep_done', now });
    }
    const out = next(d, t, { type: 'action_done', result: limited, now });
    expect(out.events).toContainEqual(
      expect.objectContaining({ event: 'route', from: 'ask', to: 'limited_out', verdict: 'rate_limit_exhausted' }),
    );
    expect(out.events).toContainEqual(
      expect.objectContaining({ event: 'action_error', error: 'rate limited after 2 pauses (max_rate_limit_retries)' }),
    );
  });

  it('rate_limit_max_wait_seconds bounds the wait, then on_rate_limit_exhausted', () => {
    const d = agent({ rate_limit_max_wait_seconds: 10, on_rate_limit_exhausted: 'limited_out' });
    const first = next(d, begin(d, T0), { type: 'action_done', result: limited, now: T0 });
    expect(first.effect).toMatchObject({ type: 'sleep', ms: 10_000 });
    const again = next(d, first, { type: 'sleep_done', now: T0 + 10_000 });
    const out = next(d, again, { type: 'action_done', result: limited, now: T0 + 11_000 });
    expect(out.events).toContainEqual(expect.objectContaining({ event: 'route', to: 'limited_out' }));
  });

  it('rate_limit_max_wait_seconds: 0 opts out of the long wait: only the pause count bounds it', () => {
    const d = agent({
      rate_limit_max_wait_seconds: 0,
      max_rate_limit_retries: 1,
      on_rate_limit_exhausted: 'limited_out',
    });
    const first = next(d, begin(d, T0), { type: 'action_done', result: limited, now: T0 });
    expect(first.effect).toMatchObject({ type: 'sleep', reason: 'rate_limit' });
    const again = next(d, first, { type: 'sleep_done', now: T0 + 60_000 });
    const out = next(d, again, { type: 'action_done', result: limited, now: T0 + 61_000 });
    expect(out.events).toContainEqual(expect.objectContaining({ event: 'route', to: 'limited_out' }));
  });

  it('a state without them pauses as the loop says', () => {
    const d = agent({});
    const first = next(d, begin(d, T0), { type: 'action_done', result: limited, now: T0 });
    expect(first.effect).toMatchObject({ type: 'sleep', ms: 60_000 });
  });
});

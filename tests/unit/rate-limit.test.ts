/**
 * Rate limits pause the run (issue 13 §1): a durable sleep until the reset (plus margin), after
 * retry-after, or with exponential backoff and jitter; then the same call again. Not a step, a
 * pass, a verdict or an attempt; `llm.rate_limit.max_wait` bounds it, past which the verdict is
 * `error`.
 */
import { describe, expect, it } from 'vitest';
import { pauseFor, RATE_LIMIT_DEFAULTS } from '../../fsm/run/rate-limit.js';
import type { RateLimitFact } from '../../fsm/types.js';
import type { Transition } from '../../fsm/run/snapshot.js';
import { begin, def, loop, next } from './helpers.js';

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const QUOTA: RateLimitFact = {
  kind: 'quota',
  message: 'Claude AI usage limit reached|1795000000',
  resets_at_ms: T0 + 3_600_000,
  jitter: 0.5,
};
const LIMITED: RateLimitFact = { kind: 'rate_limit', message: 'API Error: 429 rate_limit_error', jitter: 0 };
const ok = (output = 'done') => ({ output, stderr: '', exit_code: 0, duration_ms: 5 });
const limited = (fact: RateLimitFact) => ({
  output: fact.message,
  stderr: '',
  exit_code: 1,
  duration_ms: 5,
  rate_limit: fact,
});
const S = { ...RATE_LIMIT_DEFAULTS };

describe('pauseFor', () => {
  it('waits until an announced reset plus the margin', () => {
    expect(pauseFor(S, QUOTA, undefined, T0)).toEqual({ wait_ms: 3_600_000 + 60_000 });
  });
  it('refuses a reset announced past max_wait, saying when it resets and the fix', () => {
    const far = { ...QUOTA, resets_at_ms: T0 + 7 * 3_600_000 };
    const out = pauseFor(S, far, undefined, T0);
    expect(out).toEqual({
      error: expect.stringContaining(
        'resets at 2026-11-24T19:00:00.000Z, past llm.rate_limit.max_wait (6h 0m): raise max_wait',
      ),
    });
  });
  it('backs off exponentially with equal jitter, capped at max_backoff', () => {
    const prior = (pauses: number) => ({
      source: 'action' as const,
      kind: 'rate_limit' as const,
      message: '',
      since_ms: T0,
      pauses,
      resumes_at_ms: T0,
    });
    expect(pauseFor(S, { ...LIMITED, jitter: 0 }, undefined, T0)).toEqual({ wait_ms: 30_000 });
    expect(pauseFor(S, { ...LIMITED, jitter: 1 }, undefined, T0)).toEqual({ wait_ms: 60_000 });
    expect(pauseFor(S, { ...LIMITED, jitter: 1 }, prior(2), T0 + 1000)).toEqual({ wait_ms: 240_000 });
    expect(pauseFor(S, { ...LIMITED, jitter: 1 }, prior(10), T0 + 1000)).toEqual({ wait_ms: 1_800_000 });
  });
  it('honours retry-after, with a little jitter', () => {
    expect(pauseFor(S, { ...LIMITED, retry_after_ms: 20_000, jitter: 0 }, undefined, T0)).toEqual({ wait_ms: 20_000 });
    expect(pauseFor(S, { ...LIMITED, retry_after_ms: 20_000, jitter: 1 }, undefined, T0)).toEqual({ wait_ms: 24_000 });
  });
  it('shortens the last pause to end at max_wait, then gives up', () => {
    const settings = { ...S, max_wait: 100 };
    const prior = {
      source: 'action' as const,
      kind: 'rate_limit' as const,
      message: '',
      since_ms: T0,
      pauses: 3,
      resumes_at_ms: T0,
    };
    expect(pauseFor(settings, { ...LIMITED, jitter: 1 }, prior, T0 + 90_000)).toEqual({ wait_ms: 10_000 });
    expect(pauseFor(settings, LIMITED, prior, T0 + 100_000)).toEqual({
      error: expect.stringContaining('still limited after waiting 1m 40s'),
    });
  });
  it('never pauses less than a second (a reset "now" is not retried in a tight loop)', () => {
    expect(pauseFor({ ...S, margin: 0 }, { ...QUOTA, resets_at_ms: T0 + 10 }, undefined, T0)).toEqual({
      wait_ms: 1000,
    });
  });
});

const agentLoop = (extra: Record<string, unknown> = {}) =>
  def(
    loop(
      {
        fix: { action: 'fix it', action_type: 'prompt', capture: 'fixed', next: 'check' },
        check: {
          action: 'make test',
          evaluate: { type: 'exit_code' },
          on_yes: 'done',
          on_no: 'fix',
          on_error: 'failed',
        },
        failed: { terminal: true, failure: true },
      },
      extra,
    ),
  );

describe('a rate-limited prompt action', () => {
  it('pauses on a durable timer and runs the same action again: no step, pass, capture, verdict or attempt', () => {
    const d = agentLoop();
    const t0 = begin(d, T0);
    expect(t0.effect).toMatchObject({ type: 'run_action', input: { kind: 'prompt', state: 'fix' } });
    const paused = next(d, t0, { type: 'action_done', result: limited(QUOTA), now: T0 });
    expect(paused.effect).toEqual({ type: 'sleep', ms: 3_660_000, until_ms: T0 + 3_660_000, reason: 'rate_limit' });
    expect(paused.snapshot).toMatchObject({
      phase: 'rate_limited',
      steps: 1,
      iteration: 1,
      attempt: 1,
      captured: {},
      result: null,
    });
    expect(paused.snapshot).toMatchObject({
      rateLimit: { source: 'action', kind: 'quota', since_ms: T0, pauses: 1, resumes_at_ms: T0 + 3_660_000 },
    });
    expect(paused.events.map((e) => e.event)).toEqual(['action_complete', 'rate_limited']);
    expect(paused.events[0]).toMatchObject({ rate_limited: true });
    expect(paused.events[1]).toMatchObject({
      state: 'fix',
      source: 'action',
      kind: 'quota',
      resumes_at: new Date(T0 + 3_660_000).toISOString(),
      wait_ms: 3_660_000,
      pause: 1,
    });

    const again = next(d, paused, { type: 'sleep_done', now: T0 + 3_660_000 });
    expect(again.effect).toMatchObject({ type: 'run_action', input: { kind: 'prompt', state: 'fix', step: 1 } });
    expect(again.events.map((e) => e.event)).toEqual(['rate_limit_resume', 'action_start']);
    expect(again.snapshot).toMatchObject({ phase: 'action', steps: 1, attempt: 1 });

    const done = next(d, again, { type: 'action_done', result: ok('fixed'), now: T0 + 3_700_000 });
    expect(done.snapshot).toMatchObject({ steps: 2, captured: { fixed: { output: 'fixed' } } });
    expect(done.snapshot).not.toHaveProperty('rateLimit');
    expect(done.effect).toMatchObject({ type: 'run_action', input: { state: 'check' } });
  });

  it('keeps counting max_wait across consecutive pauses of one call, then routes error', () => {
    const d = agentLoop({ llm: { rate_limit: { max_wait: '2m', backoff: 60 } } });
    let t: Transition = begin(d, T0);
    let now = T0;
    const waits: number[] = [];
    for (;;) {
      t = next(d, t, { type: 'action_done', result: limited({ ...LIMITED, jitter: 1 }), now });
      if (t.effect.type !== 'sleep') break;
      waits.push(t.effect.ms);
      now += t.effect.ms;
      t = next(d, t, { type: 'sleep_done', now });
    }
    expect(waits).toEqual([60_000, 60_000]);
    const why = 'still limited after waiting 2m 0s, the most llm.rate_limit.max_wait (2m 0s) allows';
    expect(t.events.find((e) => e.event === 'action_error')).toMatchObject({
      state: 'fix',
      error: expect.stringContaining(why),
    });
    // fix has next: and no on_error:, so the error ends the run, naming the state and the reason.
    expect(t.effect).toMatchObject({
      type: 'finish',
      result: { terminated_by: 'error', error: expect.stringContaining(`state "fix": rate limit: API Error: 429`) },
    });
  });

  it('is not an attempt under retry:', () => {
    const d = def(
      loop({
        fix: {
          action: 'fix it',
          action_type: 'prompt',
          retry: { attempts: 2 },
          evaluate: { type: 'exit_code' },
          on_yes: 'done',
          on_no: 'done',
          on_error: 'done',
        },
      }),
    );
    let t = begin(d, T0);
    t = next(d, t, { type: 'action_done', result: limited(LIMITED), now: T0 });
    t = next(d, t, { type: 'sleep_done', now: T0 + 60_000 });
    expect(t.snapshot.attempt).toBe(1);
    expect(t.events.some((e) => e.event === 'action_retry')).toBe(false);
  });

  it('can be stopped while paused', () => {
    const d = agentLoop();
    const paused = next(d, begin(d, T0), { type: 'action_done', result: limited(QUOTA), now: T0 });
    const stopped = next(d, paused, { type: 'cancel', now: T0 + 5 });
    expect(stopped.effect).toMatchObject({
      type: 'finish',
      result: { terminated_by: 'cancelled', final_state: 'fix' },
    });
  });

  it('a prompt re-asked for its output_schema is asked again with the same errors after the pause', () => {
    const schema = { type: 'object', required: ['n'] };
    const d = def(
      loop({
        ask: {
          action: 'count',
          action_type: 'prompt',
          output_schema: schema,
          evaluate: { type: 'exit_code' },
          on_yes: 'done',
          on_no: 'done',
          on_error: 'done',
        },
      }),
    );
    let t = begin(d, T0);
    t = next(d, t, {
      type: 'action_done',
      result: { ...ok('{}'), output_check: { errors: ['must have required property n'] } },
      now: T0,
    });
    expect(t.effect).toMatchObject({ type: 'run_action' });
    t = next(d, t, { type: 'action_done', result: limited(LIMITED), now: T0 + 1 });
    t = next(d, t, { type: 'sleep_done', now: T0 + 60_000 });
    expect(t.effect.type === 'run_action' && JSON.stringify(t.effect.input)).toContain('must have required property n');
  });
});

describe('a rate-limited LLM evaluation', () => {
  const judged = () =>
    def(
      loop({
        check: {
          action: 'make',
          evaluate: { type: 'llm_structured' },
          on_yes: 'done',
          on_no: 'check',
          on_error: 'failed',
        },
        failed: { terminal: true, failure: true },
      }),
    );
  it('pauses holding the action result, then evaluates it again', () => {
    const d = judged();
    const atLlm = next(d, begin(d, T0), { type: 'action_done', result: ok('built'), now: T0 });
    expect(atLlm.effect.type).toBe('evaluate_llm');
    const paused = next(d, atLlm, {
      type: 'llm_rate_limited',
      rate_limit: { ...LIMITED, retry_after_ms: 5000 },
      now: T0 + 1,
    });
    expect(paused.snapshot).toMatchObject({
      phase: 'rate_limited',
      pending: { output: 'built' },
      rateLimit: { source: 'llm' },
    });
    expect(paused.effect).toMatchObject({ type: 'sleep', ms: 5000, reason: 'rate_limit' });
    const again = next(d, paused, { type: 'sleep_done', now: T0 + 5001 });
    expect(again.effect).toMatchObject({ type: 'evaluate_llm', input: { state: 'check', output: 'built' } });
    expect(again.snapshot).toMatchObject({ phase: 'llm', pending: { output: 'built' } });
    const routed = next(d, again, {
      type: 'llm_replied',
      judgement: { verdict: 'yes', confidence: 1, reason: '', raw: {} },
      now: T0 + 6000,
    });
    expect(routed.effect.type).toBe('finish');
    expect(routed.snapshot).not.toHaveProperty('rateLimit');
  });
  it('past max_wait judges error with the rate limit in details, routed like any error', () => {
    const d = judged();
    const atLlm = next(d, begin(d, T0), { type: 'action_done', result: ok('built'), now: T0 });
    const out = next(d, atLlm, {
      type: 'llm_rate_limited',
      rate_limit: { ...QUOTA, resets_at_ms: T0 + 48 * 3_600_000 },
      now: T0 + 1,
    });
    expect(out.events.find((e) => e.event === 'evaluate')).toMatchObject({
      verdict: 'error',
      details: { rate_limit: { kind: 'quota' } },
    });
    expect(out.events.find((e) => e.event === 'route')).toMatchObject({ to: 'failed', verdict: 'error' });
  });
});

describe('llm.rate_limit settings', () => {
  it('take durations as seconds or strings with a unit', () => {
    const d = agentLoop({ llm: { rate_limit: { max_wait: '90m', backoff: '30s', max_backoff: 600, margin: 0 } } });
    expect(d.llm.rate_limit).toEqual({ max_wait: 5400, backoff: 30, max_backoff: 600, margin: 0 });
  });
  it('refuse a negative or malformed duration', () => {
    expect(() => agentLoop({ llm: { rate_limit: { max_wait: -1 } } })).toThrow(/max_wait/);
    expect(() => agentLoop({ llm: { rate_limit: { max_wait: 'soon' } } })).toThrow(/duration is a number of seconds/);
  });
});

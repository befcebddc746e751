/**
 * Rate limits and spent quotas pause the run; they are never results (issue 13 §1).
 *
 * When the agent answers a prompt action or an LLM evaluation with a rate limit (the worker's
 * fact, activities/rate-limit.ts), the run sleeps on a durable timer — until the announced reset
 * plus `margin`, else after the provider's `retry-after`, else with exponential backoff and
 * jitter — and then makes the same call again. The pause is not a step, a pass, a verdict or a
 * retry attempt: nothing is captured, nothing is routed, `attempt` is unchanged.
 *
 * `llm.rate_limit.max_wait` bounds how long one call may stay limited, counted from its first
 * pause: a reset announced beyond it, or a limit still there when it has passed, makes the
 * state's verdict `error` with the reason.
 *
 * little-loops' per-state fields, read only in states that give them: `rate_limit_backoff_base_seconds`
 * and `rate_limit_max_wait_seconds` are this state's `backoff` and `max_wait`; after
 * `max_rate_limit_retries` pauses of one call, or past its max_wait, a state with
 * `on_rate_limit_exhausted` goes there (verdict `rate_limit_exhausted`) instead of judging `error`.
 */
import { formatDuration } from '../format.js';
import { errorResult, evaluateState } from '../evaluate-state.js';
import { emit, endAsks, scopeOf, setEffect, stateOf, type Draft } from './draft.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import type { RateLimitPause } from './snapshot.js';
import type { ActionResult, RateLimitFact } from '../types.js';
import { afterEvaluation, failState, routeTo, runAction } from './steps.js';

/** Defaults of `llm.rate_limit`, in seconds. */
export const RATE_LIMIT_DEFAULTS = { max_wait: 6 * 3600, backoff: 60, max_backoff: 30 * 60, margin: 60 } as const;

/** A pause shorter than this is made this long: a reset "now" is not retried in a tight loop. */
const MIN_PAUSE_MS = 1000;

export type RateLimitSettings = { [K in keyof typeof RATE_LIMIT_DEFAULTS]: number };

function rateLimitSettings(def: LoopDefinition, state: StateConfig): RateLimitSettings {
  return {
    ...RATE_LIMIT_DEFAULTS,
    ...def.llm.rate_limit,
    ...(state.rate_limit_backoff_base_seconds === undefined ? {} : { backoff: state.rate_limit_backoff_base_seconds }),
    // 0 opts out of the long wait: the state's pauses are bounded by max_rate_limit_retries alone.
    ...(state.rate_limit_max_wait_seconds === undefined || state.rate_limit_max_wait_seconds === 0
      ? {}
      : { max_wait: state.rate_limit_max_wait_seconds }),
  };
}

/** little-loops' `on_rate_limit_exhausted` of a state (an `on_<verdict>` key here), if it has one. */
function exhaustedRoute(state: StateConfig): string | undefined {
  const target = (state as Record<string, unknown>).on_rate_limit_exhausted;
  return typeof target === 'string' ? target : undefined;
}

/** How long to pause for `fact`, given the call's earlier pauses; or why it may not wait longer. */
export function pauseFor(
  settings: RateLimitSettings,
  fact: RateLimitFact,
  prior: RateLimitPause | undefined,
  now: number,
): { wait_ms: number } | { error: string } {
  const since = prior?.since_ms ?? now;
  const deadline = since + settings.max_wait * 1000;
  const said = `${fact.kind.replace('_', ' ')}: ${fact.message || 'no message'}`;
  const bound = `llm.rate_limit.max_wait (${formatDuration(settings.max_wait * 1000)})`;
  if (fact.resets_at_ms !== undefined && fact.resets_at_ms > now) {
    const until = fact.resets_at_ms + settings.margin * 1000;
    if (until > deadline) {
      return {
        error: `${said}; it resets at ${new Date(fact.resets_at_ms).toISOString()}, past ${bound}: raise max_wait to wait for it`,
      };
    }
    return { wait_ms: Math.max(MIN_PAUSE_MS, until - now) };
  }
  if (now >= deadline) {
    return { error: `${said}; still limited after waiting ${formatDuration(now - since)}, the most ${bound} allows` };
  }
  const jitter = Math.min(Math.max(fact.jitter, 0), 1);
  let wait: number;
  if (fact.retry_after_ms !== undefined) {
    // What the provider asked for, and a little more so runs it limited together spread out.
    wait = fact.retry_after_ms + Math.round(jitter * Math.min(fact.retry_after_ms, 30_000) * 0.2);
  } else {
    // Exponential backoff with "equal jitter": half the step is fixed, half is drawn.
    const step = Math.min(settings.max_backoff, settings.backoff * 2 ** (prior?.pauses ?? 0)) * 1000;
    wait = Math.round(step / 2 + (jitter * step) / 2);
  }
  return { wait_ms: Math.max(MIN_PAUSE_MS, Math.min(wait, deadline - now)) };
}

/**
 * The current state's call was answered with a rate limit: pause (phase `rate_limited`, a durable
 * sleep), or — past max_wait — judge it `error`. `action`: the result an LLM evaluation judges
 * (null for a paused prompt action, whose own result is discarded).
 */
export function onRateLimited(
  d: Draft,
  source: RateLimitPause['source'],
  fact: RateLimitFact,
  action: ActionResult | null,
): void {
  const state = stateOf(d);
  const prior = d.snap.rateLimit;
  const earlier = prior?.source === source ? prior.pauses : 0;
  const cap = state.max_rate_limit_retries;
  const decided =
    cap !== undefined && earlier >= cap
      ? { error: `rate limited after ${cap} pause${cap === 1 ? '' : 's'} (max_rate_limit_retries)` }
      : pauseFor(rateLimitSettings(d.def, state), fact, prior?.source === source ? prior : undefined, d.now);
  if ('error' in decided) {
    delete d.snap.rateLimit;
    endAsks(d);
    const exhausted = exhaustedRoute(state);
    if (exhausted !== undefined) {
      d.snap.pending = null;
      emit(d, 'action_error', { state: d.snap.current, error: decided.error });
      return routeTo(d, state, exhausted, 'rate_limit_exhausted', action);
    }
    const details = {
      rate_limit: {
        kind: fact.kind,
        message: fact.message,
        ...(fact.resets_at_ms === undefined ? {} : { resets_at: new Date(fact.resets_at_ms).toISOString() }),
      },
    };
    if (source === 'action') return failState(d, state, decided.error);
    d.snap.pending = null;
    return afterEvaluation(d, state, 'llm_structured', errorResult(decided.error, details), action);
  }
  const resumes = d.now + decided.wait_ms;
  const pauses = earlier + 1;
  d.snap.rateLimit = {
    source,
    kind: fact.kind,
    message: fact.message,
    since_ms: prior?.source === source ? prior.since_ms : d.now,
    pauses,
    resumes_at_ms: resumes,
  };
  emit(d, 'rate_limited', {
    state: d.snap.current,
    source,
    kind: fact.kind,
    message: fact.message,
    resumes_at: new Date(resumes).toISOString(),
    wait_ms: decided.wait_ms,
    pause: pauses,
  });
  d.snap.phase = 'rate_limited';
  d.snap.pending = action;
  setEffect(d, { type: 'sleep', ms: decided.wait_ms, until_ms: resumes, reason: 'rate_limit' });
}

/** The pause is over: make the same call again (the same prompt, or the same evaluation of the held result). */
export function resumeAfterRateLimit(d: Draft): void {
  const state = stateOf(d);
  const paused = d.snap.rateLimit;
  const source = paused?.source ?? 'action';
  emit(d, 'rate_limit_resume', { state: d.snap.current, source, pause: paused?.pauses ?? 1 });
  const errors = d.snap.reaskErrors;
  if (source === 'action' && state.action !== undefined) return runAction(d, state, state.action, errors);
  const evaluation = evaluateState(d.def, state, d.snap.pending, d.snap, scopeOf(d.def, d.snap, d.now));
  if (evaluation.kind !== 'llm') {
    // The definition is what the call was made from, so this cannot happen; say so rather than stall.
    d.snap.pending = null;
    return failState(d, state, 'internal: a rate-limited evaluation is no longer an LLM evaluation');
  }
  d.snap.phase = 'llm';
  setEffect(d, {
    type: 'evaluate_llm',
    input: { ...evaluation.input, state: d.snap.current, ...(errors ? { schema_errors: errors } : {}) },
  });
}

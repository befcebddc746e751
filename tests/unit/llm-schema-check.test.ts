/**
 * LLM answers that miss their JSON Schema (issue 13 §4): the core asks again with the errors, up
 * to `llm.schema_retries`, each ask its own effect with the count in the snapshot, then judges
 * `error` with the errors in details; the activity's re-ask prompt carries the errors.
 */
import { describe, expect, it } from 'vitest';
import { evaluationPrompt } from '../../activities/evaluate-llm.js';
import { REASK_INTRO } from '../../fsm/answer-check.js';
import { llmReplyFact } from '../../fsm/run/facts.js';
import type { InvalidAnswer, Transition } from '../../fsm/run/snapshot.js';
import { begin, def, loop, next } from './helpers.js';

const SCHEMA = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['done', 'retry'] } },
  required: ['verdict'],
};
const MAYBE: InvalidAnswer = {
  errors: ['/verdict must be equal to one of the allowed values: "done", "retry"'],
  answer: { verdict: 'maybe' },
};

function judged(extra: Record<string, unknown> = {}) {
  const d = def(
    loop(
      {
        check: {
          action: 'make',
          evaluate: { type: 'llm_structured', schema: SCHEMA },
          route: { done: 'done', retry: 'check', error: 'failed' },
        },
        failed: { terminal: true, failure: true },
      },
      extra,
    ),
  );
  const atLlm = next(d, begin(d), {
    type: 'action_done',
    result: { output: 'built', stderr: '', exit_code: 0, duration_ms: 1 },
    now: 5,
  });
  return { d, atLlm };
}
const evaluated = (out: Transition) => out.events.find((e) => e.event === 'evaluate');

describe('an answer that misses the schema', () => {
  it('is asked again with its errors, the count kept in the snapshot', () => {
    const { d, atLlm } = judged();
    const again = next(d, atLlm, { type: 'llm_invalid', invalid: MAYBE, now: 10 });
    expect(again.effect).toMatchObject({
      type: 'evaluate_llm',
      input: { state: 'check', output: 'built', schema: SCHEMA, schema_errors: MAYBE.errors },
    });
    expect(again.snapshot).toMatchObject({ phase: 'llm', schemaAsks: 1, pending: { output: 'built' } });
    expect(again.events.map((e) => e.event)).toEqual(['llm_reask']);
    expect(again.events[0]).toMatchObject({ state: 'check', ask: 2, asks: 3, errors: MAYBE.errors });
    // A valid answer to the second ask routes as any answer does.
    const routed = next(d, again, {
      type: 'llm_replied',
      judgement: { verdict: 'done', confidence: 1, reason: '', raw: { verdict: 'done' } },
      now: 11,
    });
    expect(evaluated(routed)).toMatchObject({ verdict: 'done' });
    expect(routed.snapshot).not.toHaveProperty('schemaAsks');
    expect(routed.effect.type).toBe('finish');
  });

  it('gives error with the errors in details after llm.schema_retries more asks (default 2)', () => {
    const { d, atLlm } = judged();
    let t = atLlm;
    for (let i = 0; i < 2; i += 1) {
      t = next(d, t, { type: 'llm_invalid', invalid: MAYBE, now: 10 + i });
      expect(t.effect.type).toBe('evaluate_llm');
    }
    const out = next(d, t, { type: 'llm_invalid', invalid: MAYBE, now: 20 });
    expect(evaluated(out)).toMatchObject({
      verdict: 'error',
      details: {
        errors: MAYBE.errors,
        answer: { verdict: 'maybe' },
        error: `LLM answer does not match the evaluator's schema after 3 asks: ${MAYBE.errors[0]}`,
      },
    });
    expect(out.events.find((e) => e.event === 'route')).toMatchObject({ to: 'failed' });
  });

  it('with schema_retries: 0 is error at once', () => {
    const { d, atLlm } = judged({ llm: { schema_retries: 0 } });
    const out = next(d, atLlm, { type: 'llm_invalid', invalid: MAYBE, now: 10 });
    expect(evaluated(out)).toMatchObject({
      verdict: 'error',
      details: { error: expect.stringMatching(/after 1 ask:/) },
    });
  });

  it('the count starts again for the next evaluation', () => {
    const { d, atLlm } = judged({ llm: { schema_retries: 1 } });
    const asked = next(d, atLlm, { type: 'llm_invalid', invalid: MAYBE, now: 10 });
    const retry = next(d, asked, {
      type: 'llm_replied',
      judgement: { verdict: 'retry', confidence: 1, reason: '', raw: {} },
      now: 11,
    });
    const atLlm2 = next(d, retry, {
      type: 'action_done',
      result: { output: 'built', stderr: '', exit_code: 0, duration_ms: 1 },
      now: 12,
    });
    expect(atLlm2.snapshot).not.toHaveProperty('schemaAsks');
    expect(next(d, atLlm2, { type: 'llm_invalid', invalid: MAYBE, now: 13 }).effect.type).toBe('evaluate_llm');
  });
});

describe('llmReplyFact', () => {
  it('maps each reply to its fact', () => {
    expect(llmReplyFact({ invalid: MAYBE }, 3)).toEqual({ type: 'llm_invalid', invalid: MAYBE, now: 3 });
    expect(llmReplyFact({ error: 'x' }, 3)).toEqual({ type: 'llm_error', error: 'x', now: 3 });
  });
});

describe('the re-ask prompt', () => {
  it('is the question with the previous answer’s errors appended', () => {
    const first = evaluationPrompt('Is it built?', 'ok');
    expect(first).not.toContain(REASK_INTRO);
    const again = evaluationPrompt('Is it built?', 'ok', MAYBE.errors);
    expect(again.startsWith(first)).toBe(true);
    expect(again).toContain(`${REASK_INTRO}\n<schema_errors>\n- ${MAYBE.errors[0]}\n</schema_errors>`);
  });
});

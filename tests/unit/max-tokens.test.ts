/**
 * `llm.max_tokens` bounds calls to API providers only; a bound the author wrote where only the
 * host CLI answers (which has no option for it) is a validation warning naming where and why.
 */
import { describe, expect, it } from 'vitest';
import type { Transition } from '../../fsm/run/snapshot.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { begin, def, loop, next } from './helpers.js';

const judged = (llm?: Record<string, unknown>) => ({
  action: 'echo out',
  evaluate: { type: 'llm_structured', ...(llm ? { llm } : {}) },
  on_yes: 'done',
  on_no: 'done',
});
const raw = (extra: Record<string, unknown>, states: Record<string, unknown> = { check: judged() }) => ({
  name: 'm',
  description: 'd',
  initial: Object.keys(states)[0],
  ...extra,
  states: { ...states, done: { terminal: true } },
});
const warnings = (doc: Record<string, unknown>) =>
  (validateLoop(doc).diagnostics ?? [])
    .filter((d) => d.severity === 'warning' && d.message.includes('max_tokens'))
    .map((d) => ({ path: d.path.join('.'), message: d.message }));

describe('llm.max_tokens under the host CLI', () => {
  it('the loop-level bound, written in the file, with every evaluation by the host CLI: a warning at llm.max_tokens', () => {
    expect(warnings(raw({ llm: { max_tokens: 512 } }))).toEqual([
      { path: 'llm.max_tokens', message: expect.stringContaining('the host CLI (claude -p) has no option for it') },
    ]);
  });

  it('the default (not written) and a bound an API provider takes: no warning', () => {
    expect(warnings(raw({}))).toEqual([]);
    expect(warnings(raw({ llm: { provider: 'anthropic', model: 'm', max_tokens: 512 } }))).toEqual([]);
    // One evaluation by an API provider takes the loop's bound.
    expect(
      warnings(
        raw(
          { llm: { max_tokens: 512 } },
          { check: judged({ provider: 'openai-compatible', model: 'x', base_url: 'http://localhost:1/v1' }) },
        ),
      ),
    ).toEqual([]);
  });

  it("an evaluation's or a prompt state's own bound under the host CLI: a warning at its path", () => {
    const bad = raw(
      {},
      {
        check: judged({ max_tokens: 99 }),
        ask: { action: 'Summarise', action_type: 'prompt', llm: { max_tokens: 1000 }, next: 'done' },
      },
    );
    expect(warnings(bad).map((w) => w.path)).toEqual([
      'states.check.evaluate.llm.max_tokens',
      'states.ask.llm.max_tokens',
    ]);
  });
});

describe('llm.max_tokens and budgets', () => {
  it('a completion by an API provider states 4096 when its state gives no bound: not started with fewer tokens left', () => {
    const d = def(
      loop(
        {
          write: { action: 'Write the summary', action_type: 'prompt', next: 'write', on_budget: 'stop' },
          stop: { action: 'echo out of tokens', next: 'done' },
        },
        { budget: { max_tokens: 5000 }, llm: { provider: 'anthropic', model: 'm' } },
      ),
    );
    let out: Transition = begin(d);
    expect(out.effect).toMatchObject({ type: 'run_action', input: { kind: 'prompt', llm: { max_tokens: 4096 } } });
    out = next(d, out, {
      type: 'action_done',
      result: {
        output: 'text',
        stderr: '',
        exit_code: 0,
        duration_ms: 5,
        usage: { input_tokens: 800, output_tokens: 200 },
      },
      now: 10,
    });
    // 1000 spent, 4000 left: a completion that may use 4096 is not started.
    expect(out.effect).toMatchObject({ type: 'run_action', input: { state: 'stop' } });
    expect(out.events.find((e) => e.event === 'budget_spent')).toMatchObject({
      state: 'write',
      limit: 'max_tokens',
      spent: 1000,
      max: 5000,
      needed: 4096,
    });
  });

  it('a host CLI evaluation states no maximum: it is made, whatever llm.max_tokens says', () => {
    const d = def(
      loop(
        {
          fix: {
            action: 'work',
            evaluate: { type: 'llm_structured' },
            on_yes: 'done',
            on_no: 'fix',
            on_budget: 'stop',
          },
          stop: { action: 'echo out', next: 'done' },
        },
        { budget: { max_tokens: 1000 }, llm: { max_tokens: 900 } },
      ),
    );
    let out: Transition = begin(d);
    out = next(d, out, {
      type: 'action_done',
      result: { output: 'ok', stderr: '', exit_code: 0, duration_ms: 5, usage: { input_tokens: 400 } },
      now: 10,
    });
    // 600 left < 900, but the host CLI takes no bound: the evaluation is asked, without one.
    expect(out.effect).toMatchObject({ type: 'evaluate_llm' });
    expect(out.effect.type === 'evaluate_llm' ? out.effect.input.llm : 'none').toBeUndefined();
  });
});

/**
 * `llm.max_tokens` bounds calls to API providers only; a bound the author wrote where only the
 * host CLI answers (which has no option for it) is a validation warning naming where and why.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/validate.js';

const judged = (llm?: Record<string, unknown>) => ({ action: 'echo out', evaluate: { type: 'llm_structured', ...(llm ? { llm } : {}) }, on_yes: 'done', on_no: 'done' });
const loop = (extra: Record<string, unknown>, states: Record<string, unknown> = { check: judged() }) => ({ name: 'm', description: 'd', initial: Object.keys(states)[0], ...extra, states: { ...states, done: { terminal: true } } });
const warnings = (raw: Record<string, unknown>) => (validateLoop(raw).diagnostics ?? []).filter((d) => d.severity === 'warning' && d.message.includes('max_tokens')).map((d) => ({ path: d.path.join('.'), message: d.message }));

describe('llm.max_tokens under the host CLI', () => {
  it('the loop-level bound, written in the file, with every evaluation by the host CLI: a warning at llm.max_tokens', () => {
    expect(warnings(loop({ llm: { max_tokens: 512 } }))).toEqual([{ path: 'llm.max_tokens', message: expect.stringContaining('the host CLI (claude -p) has no option for it') }]);
  });

  it('the default (not written) and a bound an API provider takes: no warning', () => {
    expect(warnings(loop({}))).toEqual([]);
    expect(warnings(loop({ llm: { provider: 'anthropic', model: 'm', max_tokens: 512 } }))).toEqual([]);
    // One evaluation by an API provider takes the loop's bound.
    expect(warnings(loop({ llm: { max_tokens: 512 } }, { check: judged({ provider: 'openai-compatible', model: 'x', base_url: 'http://localhost:1/v1' }) }))).toEqual([]);
  });

  it("an evaluation's or a prompt state's own bound under the host CLI: a warning at its path", () => {
    const raw = loop({}, { check: judged({ max_tokens: 99 }), ask: { action: 'Summarise', action_type: 'prompt', llm: { max_tokens: 1000 }, next: 'done' } });
    expect(warnings(raw).map((w) => w.path)).toEqual(['states.check.evaluate.llm.max_tokens', 'states.ask.llm.max_tokens']);
  });
});

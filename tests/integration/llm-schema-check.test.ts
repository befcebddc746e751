/**
 * LLM answers checked against their schema on a real workflow (issue 13 §4): fake-claude answers
 * `maybe`, outside the schema's enum; the run asks again (a second activity, the errors in its
 * prompt) and routes on the valid answer, or gives `error` with the errors once every ask missed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop, toolEnv, verdicts } from './harness.js';

afterAll(closeTemporal);

const SCHEMA = {
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['done', 'retry'] },
    confidence: { type: 'number' },
    reason: { type: 'string' },
  },
  required: ['verdict'],
};
const judged = (retries?: number) =>
  definition({
    name: 'judged',
    initial: 'check',
    ...(retries === undefined ? {} : { llm: { schema_retries: retries } }),
    states: {
      check: {
        action: 'echo built',
        evaluate: { type: 'llm_structured', prompt: 'Is it built?', schema: SCHEMA },
        route: { done: 'done', retry: 'failed', maybe: 'failed', error: 'failed' },
      },
      done: { terminal: true },
      failed: { terminal: true, failure: true },
    },
  });
const prompts = (log: string) =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { prompt: string }).prompt);

describe('llm_structured answers checked against their schema', () => {
  it('asks again after an answer outside the enum and routes on the valid one', async () => {
    const p = project();
    const log = join(p.cwd, 'judge.log');
    const file = verdicts(p.cwd, [
      { verdict: 'maybe', confidence: 0.9 },
      { verdict: 'done', confidence: 0.9 },
    ]);
    const run = await runLoop(judged(), {
      cwd: p.cwd,
      checkAnswers: true,
      env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file, FAKE_CLAUDE_JUDGE_LOG: log }),
    });
    expect(run.result).toMatchObject({ final_state: 'done', terminated_by: 'terminal', failure: false });
    expect(run.events.filter((e) => e.event === 'evaluate').map((e) => e.verdict)).toEqual(['done']);
    expect(run.events.find((e) => e.event === 'llm_reask')).toMatchObject({ state: 'check', ask: 2, asks: 3 });
    const [first, second] = prompts(log);
    expect(prompts(log)).toHaveLength(2);
    expect(first).not.toContain('did not match');
    expect(second).toContain(
      'Your previous answer did not match the required JSON schema:\n<schema_errors>\n- /verdict must be equal to one of the allowed values: "done", "retry"',
    );
  });

  it('gives error with the errors in details when every ask misses', async () => {
    const p = project();
    const log = join(p.cwd, 'judge.log');
    const file = verdicts(p.cwd, [{ verdict: 'maybe' }, { verdict: 'perhaps' }]);
    const run = await runLoop(judged(1), {
      cwd: p.cwd,
      checkAnswers: true,
      env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file, FAKE_CLAUDE_JUDGE_LOG: log }),
    });
    expect(prompts(log)).toHaveLength(2);
    expect(run.result).toMatchObject({ final_state: 'failed', failure: true });
    const evaluate = run.events.find((e) => e.event === 'evaluate');
    expect(evaluate).toMatchObject({
      verdict: 'error',
      details: {
        errors: ['/verdict must be equal to one of the allowed values: "done", "retry"'],
        answer: { verdict: 'perhaps' },
      },
    });
    expect(String((evaluate?.details as Record<string, unknown>).error)).toMatch(
      /does not match the evaluator's schema after 2 asks/,
    );
  });
});

/**
 * `cannot_judge` on a real workflow: the host CLI's judge (fake-claude on LL_HOST_CLI, printing
 * the real JSON envelope) abstains; with answers checked against the schema, the abstention is
 * accepted only because the state let its judge abstain, and the run goes where the loop says.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop, toolEnv, verdicts } from './harness.js';

afterAll(closeTemporal);

const review = (fields: Record<string, unknown>) =>
  definition({
    name: 'abstaining-review',
    initial: 'review',
    states: {
      review: {
        action: 'echo "the diff is empty"',
        evaluate: { type: 'llm_structured', prompt: 'Does the change fix the bug?' },
        on_yes: 'done',
        on_no: 'failed',
        on_error: 'failed',
        ...fields,
      },
      ask_person: { action: 'echo "needs a person"', next: 'done' },
      done: { terminal: true },
      failed: { terminal: true, failure: true },
    },
  });

async function judgedOnce(fields: Record<string, unknown>) {
  const p = project();
  const file = verdicts(p.cwd, [
    { verdict: 'cannot_judge', confidence: 0.9, reason: 'nothing to see' },
    { verdict: 'cannot_judge', confidence: 0.9, reason: 'nothing to see' },
    { verdict: 'cannot_judge', confidence: 0.9, reason: 'nothing to see' },
  ]);
  return runLoop(review(fields), { cwd: p.cwd, checkAnswers: true, env: toolEnv(p, { FAKE_CLAUDE_VERDICTS: file }) });
}

describe('cannot_judge', () => {
  it('a judge that abstains routes on_cannot_judge', async () => {
    const run = await judgedOnce({ on_cannot_judge: 'ask_person' });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(run.states).toEqual(['review', 'ask_person', 'done']);
    expect(run.events.find((e) => e.event === 'evaluate')).toMatchObject({ state: 'review', verdict: 'cannot_judge' });
    expect(run.events.find((e) => e.event === 'route')).toMatchObject({ to: 'ask_person', verdict: 'cannot_judge' });
  });

  it('a state that does not let its judge abstain refuses the answer (it is not in the schema)', async () => {
    const run = await judgedOnce({});
    expect(run.result).toMatchObject({ final_state: 'failed', failure: true });
    expect(run.events.find((e) => e.event === 'evaluate')).toMatchObject({
      verdict: 'error',
      details: { errors: [expect.stringMatching(/verdict must be equal to one of the allowed values/)] },
    });
  });
});

/**
 * little-loops' fields whose meaning is at run time, on the real server: max_retries with
 * retryable_exit_codes and on_retry_exhausted, on_max_steps, the score_stall and classify
 * evaluators, and the :default= and :shell modifiers. Loops written here; their actions count in
 * files of the run's directory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop } from './harness.js';

afterAll(closeTemporal);

/** Exits 75 (retryable) on its first two calls, then 0. */
const FLAKY = 'n=$(cat tries 2>/dev/null || echo 0); n=$((n + 1)); echo $n > tries; [ "$n" -ge 3 ] || exit 75';
/** Appends the next of the scores 1, 5, 5.1 to the history file (and prints something else). */
const SCORE =
  'n=$(wc -l < scores 2>/dev/null || echo 0); set -- 1 5 5.1; shift "$n"; echo "$1" >> scores; echo "scored $1"';

describe("little-loops' run-time fields on the real server", () => {
  it('retries, stalls, classifies and quotes as the original means them', async () => {
    const p = project();
    const def = definition({
      name: 'ported',
      description: 'a loop written in little-loops form',
      initial: 'quote',
      input_key: 'issue_id',
      required_inputs: ['issue_id'],
      context: { issue_id: 'FEAT 1; touch pwned', history: 'scores' },
      states: {
        quote: {
          action:
            'printf "%s\\n" ${context.issue_id:shell} > issue.txt; echo "${captured.nothing.output:default=none}"',
          capture: 'quoted',
          next: 'flaky',
        },
        flaky: {
          action: FLAKY,
          next: 'score',
          on_error: 'flaky',
          max_retries: 3,
          retryable_exit_codes: [75],
          on_retry_exhausted: 'failed',
        },
        score: {
          action: SCORE,
          // The worker reads the history file after the action; the output is not judged.
          evaluate: { type: 'score_stall', history_file: '${context.history}', epsilon: 0.5, max_stall: 1 },
          on_yes: 'score',
          on_no: 'decide',
        },
        decide: {
          action: 'echo "weighing it"; echo "FINISH because the score stalled"',
          evaluate: { type: 'classify' },
          route: { FINISH: 'done', _: 'failed' },
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(run.states).toEqual(['quote', 'flaky', 'flaky', 'flaky', 'score', 'score', 'score', 'decide', 'done']);
    // :shell made the input one word (never code); :default= filled in the missing capture.
    expect(readFileSync(join(p.cwd, 'issue.txt'), 'utf8')).toBe('FEAT 1; touch pwned\n');
    expect(() => readFileSync(join(p.cwd, 'pwned'))).toThrow();
    expect(run.result.captured.quoted).toMatchObject({ output: 'none' });
    const verdicts = run.events.filter((e) => e.event === 'evaluate').map((e) => [e.state, e.verdict]);
    expect(verdicts).toEqual([
      ['flaky', 'error'],
      ['flaky', 'error'],
      ['score', 'yes'],
      ['score', 'yes'],
      ['score', 'no'],
      ['decide', 'FINISH'],
    ]);
  });

  it('an exit code not listed goes to on_retry_exhausted; the step cap goes to on_max_steps once', async () => {
    const p = project();
    const def = definition({
      name: 'ported-limits',
      description: 'gives up on a bad exit code, then spins until the step cap',
      initial: 'fetch',
      max_steps: 4,
      on_max_steps: 'wrap_up',
      states: {
        fetch: {
          action: 'exit 2',
          next: 'spin',
          on_error: 'fetch',
          max_retries: 5,
          retryable_exit_codes: [75],
          on_retry_exhausted: 'spin',
        },
        spin: { action: 'false', on_yes: 'done', on_no: 'spin' },
        wrap_up: { action: 'echo wrapped > wrapped.txt', next: 'stopped' },
        done: { terminal: true },
        stopped: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.states).toEqual(['fetch', 'spin', 'spin', 'spin', 'wrap_up', 'stopped']);
    const routes = run.events.filter((e) => e.event === 'route').map((e) => [e.from, e.to, e.verdict]);
    expect(routes).toContainEqual(['fetch', 'spin', 'retry_exhausted']);
    expect(routes).toContainEqual(['spin', 'wrap_up', 'max_steps']);
    expect(readFileSync(join(p.cwd, 'wrapped.txt'), 'utf8')).toBe('wrapped\n');
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'stopped', failure: true });
  });
});

/**
 * `output_schema:` on a state (issue 13 §4): the worker parses and checks the output; the core
 * exposes the value (`${captured.<name>.json…}`, `${result.details.value…}`), asks a prompt again
 * with the errors appended, and gives a shell state `error` with the errors in details.
 */
import { describe, expect, it } from 'vitest';
import { checkOutput } from '../../activities/output-check.js';
import { REASK_INTRO } from '../../fsm/answer-check.js';
import type { Transition } from '../../fsm/run/snapshot.js';
import type { ActionResult } from '../../fsm/types.js';
import { begin, def, loop, next } from './helpers.js';

const PLAN = {
  type: 'object',
  properties: { files: { type: 'array', items: { type: 'string' } }, done: { type: 'boolean' } },
  required: ['files'],
};
const ok = (output: string, extra: Partial<ActionResult> = {}): ActionResult => ({
  output,
  stderr: '',
  exit_code: 0,
  duration_ms: 1,
  ...extra,
});
const evaluated = (t: Transition) => t.events.find((e) => e.event === 'evaluate');

describe('checkOutput (worker)', () => {
  it('parses the output, also the last line after log lines, and checks it', () => {
    expect(checkOutput(PLAN, ok('{"files":["a.ts"]}'))).toEqual({ value: { files: ['a.ts'] } });
    expect(checkOutput(PLAN, ok('planning…\n{"files":[]}'))).toEqual({ value: { files: [] } });
  });

  it('lists how the value misses the schema', () => {
    expect(checkOutput(PLAN, ok('{"files":"a.ts"}'))).toEqual({ errors: ['/files must be array'] });
  });

  it('says when the output is not JSON, and why when it was cut', () => {
    expect(checkOutput(PLAN, ok('no json here'))).toEqual({ errors: ['the output is not JSON'] });
    expect(checkOutput(PLAN, ok('tail', { truncated: true }))).toEqual({
      errors: [expect.stringMatching(/^the output is not JSON \(only its last part/)],
    });
  });
});

describe('a shell state with output_schema', () => {
  const d = def(
    loop({
      plan: { action: 'make plan', output_schema: PLAN, capture: 'plan', on_yes: 'use', on_error: 'failed' },
      use: { action: 'echo ${captured.plan.json.files.0} ${result.details.value.files.0}', next: 'done' },
      failed: { terminal: true, failure: true },
    }),
  );

  it('asks the worker to check the output', () => {
    expect(begin(d).effect).toMatchObject({ type: 'run_action', input: { kind: 'shell', output_schema: PLAN } });
  });

  it('exposes the parsed value as ${captured.<name>.json…} and ${result.details.value…}', () => {
    const t = next(d, begin(d), {
      type: 'action_done',
      result: ok('{"files":["a.ts"]}', { output_check: { value: { files: ['a.ts'] } } }),
      now: 2,
    });
    expect(evaluated(t)).toMatchObject({ verdict: 'yes', details: { value: { files: ['a.ts'] } } });
    expect(t.snapshot.captured.plan).toMatchObject({ json: { files: ['a.ts'] } });
    // Data goes to the shell as variables, never spliced as code (fsm/shell-render.ts).
    expect(t.effect).toMatchObject({
      type: 'run_action',
      input: { state: 'use', shell: { vars: { LL_V1: 'a.ts', LL_V2: 'a.ts' } } },
    });
  });

  it('gives error with the errors in details when the output misses, without running it again', () => {
    const t = next(d, begin(d), {
      type: 'action_done',
      result: ok('{"files":"a.ts"}', { output_check: { errors: ['/files must be array'] } }),
      now: 2,
    });
    expect(evaluated(t)).toMatchObject({
      type: 'output_schema',
      verdict: 'error',
      details: { errors: ['/files must be array'], error: 'output does not match output_schema: /files must be array' },
    });
    expect(t.events.some((e) => e.event === 'output_reask')).toBe(false);
    expect(t.events.find((e) => e.event === 'route')).toMatchObject({ to: 'failed' });
  });
});

describe('a prompt state with output_schema', () => {
  const d = def(
    loop(
      {
        plan: {
          action: 'Plan the change as JSON',
          action_type: 'prompt',
          output_schema: PLAN,
          evaluate: { type: 'exit_code' },
          on_yes: 'done',
          on_error: 'failed',
        },
        failed: { terminal: true, failure: true },
      },
      { llm: { schema_retries: 1 } },
    ),
  );
  const bad = (t: Transition) =>
    next(d, t, {
      type: 'action_done',
      result: ok('{"files":1}', { output_check: { errors: ['/files must be array'] } }),
      now: 3,
    });

  it('is asked again with the errors appended, then routed on the valid output', () => {
    const again = bad(begin(d));
    expect(again.events.find((e) => e.event === 'output_reask')).toMatchObject({
      state: 'plan',
      ask: 2,
      asks: 2,
      errors: ['/files must be array'],
    });
    expect(again.snapshot).toMatchObject({ schemaAsks: 1 });
    const parts = again.effect.type === 'run_action' ? again.effect.input.prompt?.parts : undefined;
    expect(parts?.[0]).toBe('Plan the change as JSON');
    expect(String(parts?.[1])).toContain(`${REASK_INTRO}\n<schema_errors>\n- /files must be array`);
    const done = next(d, again, {
      type: 'action_done',
      result: ok('{"files":[]}', { output_check: { value: { files: [] } } }),
      now: 4,
    });
    expect(evaluated(done)).toMatchObject({ verdict: 'yes', details: { value: { files: [] } } });
    expect(done.snapshot).not.toHaveProperty('schemaAsks');
  });

  it('gives error after llm.schema_retries more asks', () => {
    const out = bad(bad(begin(d)));
    expect(evaluated(out)).toMatchObject({
      verdict: 'error',
      details: { error: 'output does not match output_schema after 2 asks: /files must be array' },
    });
  });
});

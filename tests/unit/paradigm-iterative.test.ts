/**
 * `paradigm: iterative` (seed 002): the compiled execute → validate → control FSM, the
 * controller's schema, how the executor receives its input, and runs played through the pure core.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLLER_SCHEMA } from '../../fsm/definition/paradigms/iterative.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { compiled, drive, resolvedDef } from './helpers.js';

describe('paradigm: iterative', () => {
  const doc = {
    paradigm: 'iterative',
    name: 'fix-parser',
    description: 'parser fixer',
    input: 'Make the parser tests pass',
    executor: { prompt: 'Work on this task: ${captured.input.output}' },
    test_command: 'npm test',
    controller: 'Done when every parser test passes.',
    max_iterations: 3,
  };

  it('compiles to start → execute → validate → control → (success: done | continue: next_input → execute)', () => {
    const out = compiled(doc);
    const states = out.states as Record<string, Record<string, unknown>>;
    expect(out.initial).toBe('start');
    expect(out.max_iterations).toBe(3);
    expect(out.context).toStrictEqual({ input: 'Make the parser tests pass', test_command: 'npm test' });
    expect(Object.keys(states)).toEqual(['start', 'execute', 'validate', 'control', 'next_input', 'done']);
    expect(states.start).toStrictEqual({
      action: "cat <<'LL_INPUT_END'\n${context.input}\nLL_INPUT_END",
      capture: 'input',
      next: 'execute',
    });
    expect(states.execute).toStrictEqual({
      action: 'Work on this task: ${captured.input.output}',
      action_type: 'prompt',
      capture: 'result',
      next: 'validate',
    });
    expect(states.validate).toStrictEqual({
      action: '${context.test_command}',
      capture: 'validation',
      next: 'control',
    });
    const control = states.control!;
    expect(control.route).toStrictEqual({ success: 'done', continue: 'next_input' });
    const evaluate = control.evaluate as Record<string, unknown>;
    expect(evaluate.type).toBe('llm_structured');
    expect(evaluate.schema).toBe(CONTROLLER_SCHEMA);
    expect(String(evaluate.prompt).startsWith('Done when every parser test passes.\n')).toBe(true);
    expect(evaluate.source).toContain('${captured.result.output}');
    expect(evaluate.source).toContain('${captured.validation.exit_code}');
    expect(states.next_input).toStrictEqual({
      action: `printf '%s' "\${result.details.raw.next_input}"`,
      capture: 'input',
      next: 'execute',
    });
    expect(validateLoop(out).diagnostics).toEqual([]);
  });

  it("the controller's schema requires {success, analysis, next_input, new_files} (and the verdict routed on)", () => {
    expect(CONTROLLER_SCHEMA.required).toEqual(['verdict', 'success', 'analysis', 'next_input', 'new_files']);
    const props = CONTROLLER_SCHEMA.properties as Record<string, Record<string, unknown>>;
    expect(props.success!.type).toBe('boolean');
    expect(props.analysis!.type).toBe('string');
    expect(props.next_input!.type).toBe('string');
    expect(props.new_files).toMatchObject({ type: 'array', items: { type: 'string' } });
  });

  it.each([
    ['{ prompt }', { prompt: 'Fix the parser.' }, 'Fix the parser.\n\n${captured.input.output}'],
    ['a /slash command', '/ll:manage-issue bug fix ', '/ll:manage-issue bug fix\n\n${captured.input.output}'],
  ])('a %s executor that does not place the input receives it after the prompt', (_what, executor, action) => {
    // compiled() also asserts there are no diagnostics.
    expect((compiled({ ...doc, executor }).states as Record<string, unknown>).execute).toMatchObject({ action });
  });

  it('a text executor keeps the usual action kind rule; { shell } forces bash', () => {
    const text = compiled({ ...doc, executor: './attempt.sh "${captured.input.output}"' });
    expect((text.states as Record<string, unknown>).execute).toStrictEqual({
      action: './attempt.sh "${captured.input.output}"',
      capture: 'result',
      next: 'validate',
    });
    const shell = compiled({ ...doc, executor: { shell: '/usr/bin/env echo ${captured.input.output}' } });
    expect((shell.states as Record<string, Record<string, unknown>>).execute!.action_type).toBe('shell');
  });

  const judgement = (success: boolean, next: string) => ({
    verdict: success ? 'success' : 'continue',
    details: {
      confidence: 1,
      confident: true,
      reason: '',
      raw: { verdict: success ? 'success' : 'continue', success, analysis: 'a', next_input: next, new_files: [] },
    },
  });

  it('next_input feeds the next executor call; success ends in done with the last executor result captured', () => {
    const run = drive(resolvedDef(compiled(doc)), {
      actions: {
        start: [{ output: 'Make the parser tests pass\n' }],
        execute: [{ output: 'attempt 1' }, { output: 'attempt 2' }],
        validate: [
          { exit_code: 1, output: '2 failed' },
          { exit_code: 0, output: 'ok' },
        ],
        next_input: [{ output: 'fix the tokenizer' }],
      },
      llm: { control: [judgement(false, 'fix the tokenizer'), judgement(true, '')] },
    });
    expect(run.entered).toEqual([
      'start',
      'execute',
      'validate',
      'control',
      'next_input',
      'execute',
      'validate',
      'control',
      'done',
    ]);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done', iterations: 2 });
    expect(run.result.captured.result!.output).toBe('attempt 2');
    const next = run.actions.find((a) => a.state === 'next_input')!;
    expect(Object.values(next.shell!.vars)).toEqual(['fix the tokenizer']);
    const prompts = run.actions.filter((a) => a.state === 'execute').map((a) => a.prompt!.parts.join(''));
    expect(prompts).toEqual(['Work on this task: Make the parser tests pass', 'Work on this task: fix the tokenizer']);
  });

  it('the iteration cap counts executor calls; the last executor result is the loop result', () => {
    const run = drive(resolvedDef(compiled(doc)), {
      actions: {
        execute: [{ output: 'attempt 1' }, { output: 'attempt 2' }, { output: 'attempt 3' }],
        validate: [{ exit_code: 1 }],
      },
      llm: { control: [judgement(false, 'again')] },
    });
    expect(run.result).toMatchObject({ terminated_by: 'max_iterations', iterations: 3, final_state: 'execute' });
    expect(run.actions.filter((a) => a.state === 'execute')).toHaveLength(3);
    expect(run.result.captured.result!.output).toBe('attempt 3');
  });
});

/**
 * `paradigm: iterative` (seed 002's execute → validate → control pattern, compact): an executor
 * works on the current input, `test_command` validates, and a controller LLM analyses both and
 * replies `{verdict, success, analysis, next_input, new_files}`, constrained to that JSON schema
 * by the host CLI's structured output. Compiles to:
 *
 *   start (captures the initial input as `input`) → execute (captures `result`) → validate
 *   (captures `validation`) → control (llm_structured) → success: done | continue: next_input
 *   (captures the reply's next_input as `input`) → execute …
 *
 * One pass per executor call, so `max_iterations` caps executor calls; when the cap ends the run,
 * `captured.result` (the loop's result, as on success) holds the last executor result.
 * Decisions (why `verdict` is in the schema, the here-document) are in docs/paradigms.md.
 */
import { z } from 'zod';
import { error, type Diagnostic } from '../../diagnostics.js';
import { textKind } from '../../action.js';
import { TemplateSyntaxError, templateRefs } from '../../template.js';
import type { ParadigmCompiler } from './compiler.js';
import { settingsOf, settingsSchema } from './fields.js';

const executor = z.union([
  z.string().min(1),
  z.strictObject({ prompt: z.string().min(1) }),
  z.strictObject({ shell: z.string().min(1) }),
]);

const schema = settingsSchema.extend({
  paradigm: z.literal('iterative'),
  input: z.string().min(1),
  executor,
  test_command: z.string().min(1),
  controller: z.string().min(1).optional(),
});
type IterativeSpec = z.output<typeof schema>;

/** Ends the here-document that prints the initial input (a line of the input may not equal it). */
const INPUT_DELIMITER = 'LL_INPUT_END';

/** The reply the controller must give. `verdict` is what the engine routes on (llm_structured). */
export const CONTROLLER_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    verdict: {
      type: 'string',
      enum: ['success', 'continue'],
      description: 'success when the goal is met (exactly when success is true), else continue',
    },
    success: { type: 'boolean', description: "true if this iteration met the loop's goal" },
    analysis: { type: 'string', description: 'what happened in this iteration and why' },
    next_input: {
      type: 'string',
      description: "the complete input for the executor's next attempt (empty when success is true)",
    },
    new_files: {
      type: 'array',
      items: { type: 'string' },
      description: 'paths of files the next attempt should look at ([] for none)',
    },
  },
  required: ['verdict', 'success', 'analysis', 'next_input', 'new_files'],
  additionalProperties: false,
};

/** The controller's instructions when the loop file gives none. */
const DEFAULT_CONTROLLER =
  'Decide whether the task in the current input is done. The validator exiting with 0 means its checks pass.';

/** The controller's question: the author's instructions, then the loop's protocol. */
function controllerPrompt(instructions: string): string {
  return [
    instructions,
    '',
    'You are the controller of an iterative loop: in each iteration an executor works on the current input, then a validator command runs. The executor output and the validator result follow.',
    'Iteration ${state.iteration}. Current input:',
    '${captured.input.output}',
    '',
    'Reply with verdict "success" and success: true when the goal is met. Otherwise reply with verdict "continue", success: false, and the complete input for the next attempt in next_input.',
    'analysis explains the outcome; new_files lists files the next attempt should look at ([] for none).',
  ].join('\n');
}

/** What the controller judges (its `<action_output>`): the executor's output, then the validator's. */
const REPORT = [
  'Executor output:',
  '${captured.result.output}',
  '',
  'Validator: ${context.test_command}',
  'Exit code: ${captured.validation.exit_code}',
  '${captured.validation.output}',
  '${captured.validation.stderr}',
].join('\n');

/** The context keys the compiled FSM defines, and the field each comes from. */
const GENERATED_CONTEXT = { input: 'input', test_command: 'test_command' } as const;

function executorText(spec: IterativeSpec): string {
  const e = spec.executor;
  return typeof e === 'string' ? e : 'prompt' in e ? e.prompt : e.shell;
}

/** The executor's action type, as the FSM will run it. */
function executorKind(spec: IterativeSpec): 'shell' | 'prompt' {
  const e = spec.executor;
  if (typeof e !== 'string') return 'prompt' in e ? 'prompt' : 'shell';
  return textKind(e);
}

/** Where the current input goes when the executor does not say: after the prompt. */
const CURRENT_INPUT = '${captured.input.output}';

/** Whether the executor's text reads the current input itself; throws TemplateSyntaxError. */
function readsInput(spec: IterativeSpec): boolean {
  return templateRefs(executorText(spec)).some((ref) => ref.namespace === 'captured' && ref.path[0] === 'input');
}

/**
 * The executor receives the current input (seed 002): a prompt that does not place it gets it
 * appended after a blank line; a shell command must place it itself, since only its author
 * knows where an argument belongs.
 */
function checkExecutor(spec: IterativeSpec): Diagnostic[] {
  const path =
    typeof spec.executor === 'string' ? ['executor'] : ['executor', 'prompt' in spec.executor ? 'prompt' : 'shell'];
  try {
    if (readsInput(spec) || executorKind(spec) === 'prompt') return [];
  } catch (err) {
    if (err instanceof TemplateSyntaxError) return [error(path, `executor: ${err.message}`)];
    throw err;
  }
  return [
    error(
      path,
      'the shell executor never reads the current input, so it would repeat the same attempt every iteration',
      `write ${CURRENT_INPUT} where the input belongs, e.g. "./attempt.sh ${CURRENT_INPUT}" (it is passed as data, never run as code)`,
    ),
  ];
}

/** The executor's action text in the FSM. */
function executorAction(spec: IterativeSpec): string {
  const text = executorText(spec);
  return readsInput(spec) ? text : `${text.trimEnd()}\n\n${CURRENT_INPUT}`;
}

export const iterativeCompiler: ParadigmCompiler<IterativeSpec> = {
  paradigm: 'iterative',
  schema,
  help: {
    input: { expected: 'text: the input of the first executor call', example: '"Make the parser tests pass"' },
    executor: {
      expected:
        'an action: text (a shell command, or a /slash command), or { prompt: text } or { shell: text }; it reads the current input as ${captured.input.output} (a prompt that does not gets it appended)',
      example: '{ prompt: "Work on this task: ${captured.input.output}" }',
    },
    prompt: { expected: 'the prompt text for the host CLI', example: '"Work on this task: ${captured.input.output}"' },
    shell: { expected: 'a shell command', example: `"./attempt.sh '\${captured.input.output}'"` },
    test_command: { expected: 'the validator: a shell command run after each executor call', example: '"npm test"' },
    controller: {
      expected: "instructions for the controller LLM's analysis (text)",
      example: '"Done when all parser tests pass."',
    },
  },
  check(spec, raw) {
    const out = checkExecutor(spec);
    const context = raw.context as Record<string, unknown> | undefined;
    for (const [key, field] of Object.entries(GENERATED_CONTEXT)) {
      if (context && Object.hasOwn(context, key)) {
        out.push(
          error(
            ['context', key],
            `context.${key} is set by the iterative compiler (from ${field}:)`,
            `rename this context entry, or set ${field}: instead`,
          ),
        );
      }
    }
    if (spec.input.split('\n').includes(INPUT_DELIMITER)) {
      out.push(
        error(
          ['input'],
          `a line of the input is ${INPUT_DELIMITER}, which ends the here-document that passes the input on`,
          `reword that line of the input`,
        ),
      );
    }
    return out;
  },
  compile(spec, raw) {
    const settings = settingsOf(raw);
    const e = spec.executor;
    const actionType = typeof e === 'string' ? {} : { action_type: 'prompt' in e ? 'prompt' : 'shell' };
    return {
      name: spec.name,
      ...settings,
      initial: 'start',
      context: {
        input: spec.input,
        test_command: spec.test_command,
        ...(settings.context as Record<string, unknown> | undefined),
      },
      states: {
        start: {
          action: `cat <<'${INPUT_DELIMITER}'\n\${context.input}\n${INPUT_DELIMITER}`,
          capture: 'input',
          next: 'execute',
        },
        execute: { action: executorAction(spec), ...actionType, capture: 'result', next: 'validate' },
        validate: { action: '${context.test_command}', capture: 'validation', next: 'control' },
        control: {
          evaluate: {
            type: 'llm_structured',
            source: REPORT,
            prompt: controllerPrompt(spec.controller ?? DEFAULT_CONTROLLER),
            schema: CONTROLLER_SCHEMA,
          },
          route: { success: 'done', continue: 'next_input' },
        },
        next_input: { action: `printf '%s' "\${result.details.raw.next_input}"`, capture: 'input', next: 'execute' },
        done: { terminal: true },
      },
    };
  },
};

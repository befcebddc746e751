/**
 * The prompts of `ll-loop create --describe` (docs/create.md, "The drafting prompt" under "Drafting with an LLM"): what the LLM
 * is told to write a loop from a description, and what it is told when its draft did not pass.
 *
 * A prompt carries everything the model needs and nothing it must remember: the loop format's
 * JSON Schema (from the zod source, as `ll-loop schema` prints it), seed 001's authoring rules,
 * a few built-in catalog loops as examples, and the description. Every ask is a fresh one-turn
 * conversation, so a correction prompt repeats the first prompt and adds the previous draft and
 * the exact messages that rejected it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loopJsonSchema } from '../../fsm/schema.js';
import { BUILTIN_LOOPS_DIR } from '../../loader/catalog.js';

/**
 * The catalog loops shown as examples: a fix-until-clean loop (a check, a prompt state that
 * fixes, a failure terminal) and a metric loop (convergence routing). Missing ones are skipped.
 */
const EXAMPLE_LOOPS = ['fix-types', 'reduce-errors'] as const;

/** Seed 001's rules for writing loops, as the model is told them. */
export const AUTHORING_RULES: readonly string[] = [
  'Write a plain FSM loop: name, description, initial, max_iterations and states (no paradigm:, no from:).',
  'Every state routes every verdict its evaluator can give: on_yes/on_no (and on_error), or a route: table whose "_" entry catches the rest; a state with next: goes there unconditionally.',
  'A shell action is judged by its exit code by default (0 is yes); a prompt state has action_type: prompt and its action is the text the coding agent gets.',
  'End in terminal states (terminal: true); a state that means the loop gave up or failed is a terminal with failure: true.',
  'Always set max_iterations, so a loop that never converges still stops.',
  'In a generator-evaluator loop (generate → evaluate → score → generate) the evaluate state never routes its on_no or on_error back to the generator: route them forward (to a score state or another evaluation), or the loop cycles with no useful output until max_iterations.',
  'Reference ${context.KEY} only for keys declared under context: or parameters:; use ${env.NAME} for secrets, never their values.',
  'Use only the fields and evaluator types in the JSON Schema below.',
];

function exampleLoops(): string[] {
  const out: string[] = [];
  for (const name of EXAMPLE_LOOPS) {
    try {
      out.push(
        `Example (${name}):\n\`\`\`yaml\n${readFileSync(join(BUILTIN_LOOPS_DIR, `${name}.yaml`), 'utf8').trimEnd()}\n\`\`\``,
      );
    } catch {
      // A catalog without this loop: fewer examples, the prompt still holds.
    }
  }
  return out;
}

/** The first prompt: format, rules, examples, then the user's description. */
export function draftPrompt(description: string): string {
  return [
    'You write loops for ll-loop: automations written as finite state machines in YAML, which ll-loop runs.',
    'Answer with exactly one YAML document, the whole loop, inside one ```yaml fence.',
    '',
    'Rules:',
    ...AUTHORING_RULES.map((r) => `- ${r}`),
    '',
    'The loop format as JSON Schema:',
    JSON.stringify({ title: 'll-loop loop definition', ...loopJsonSchema() }),
    '',
    ...exampleLoops().flatMap((e) => [e, '']),
    'The loop to write:',
    description.trim(),
  ].join('\n');
}

/** A correction prompt: the first prompt, the rejected answer and the exact reasons. */
export function retryPrompt(description: string, previous: string, problems: readonly string[]): string {
  return [
    draftPrompt(description),
    '',
    'Your previous answer was:',
    previous.trim() === '' ? '(empty)' : previous.trimEnd(),
    '',
    'It was rejected for these reasons (from ll-loop validate and ll-loop simulate):',
    ...problems.map((p) => `- ${p}`),
    '',
    'Answer again with the whole corrected loop, in one ```yaml fence.',
  ].join('\n');
}

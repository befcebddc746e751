/**
 * `paradigm: imperative` (seed 000 "Imperative"): do these steps in order, until a check says
 * stop: `step_0 → step_1 → … → check_done → (success → done, failure → step_0)`.
 * `until.passes: false` turns the check around (stop when it fails).
 */
import { z } from 'zod';
import type { ParadigmCompiler } from './compiler.js';
import { settingsOf, settingsSchema } from './fields.js';

const schema = settingsSchema.extend({
  paradigm: z.literal('imperative'),
  steps: z.array(z.string().min(1)).min(1),
  until: z.strictObject({
    check: z.string().min(1),
    passes: z.boolean().default(true),
  }),
});
type ImperativeSpec = z.output<typeof schema>;

export const imperativeCompiler: ParadigmCompiler<ImperativeSpec> = {
  paradigm: 'imperative',
  schema,
  help: {
    steps: {
      expected: 'a list of one or more actions, run in order',
      example: '["/ll:check_code types", "/ll:manage_issue bug fix"]',
      item: 'an action (a shell command or a /slash command)',
    },
    until: {
      expected: 'a mapping with check (a command) and passes (true or false)',
      example: '{ check: "mypy src/", passes: true }',
    },
    check: { expected: 'the command that decides whether to stop', example: '"mypy src/"' },
    passes: { expected: 'true (stop when the check passes) or false (stop when it fails)', example: 'true' },
  },
  compile(spec, raw) {
    const states: Record<string, unknown> = {};
    spec.steps.forEach((action, i) => {
      states[`step_${i}`] = { action, next: i + 1 < spec.steps.length ? `step_${i + 1}` : 'check_done' };
    });
    const passes = spec.until.passes;
    states.check_done = {
      action: spec.until.check,
      on_success: passes ? 'done' : 'step_0',
      on_failure: passes ? 'step_0' : 'done',
    };
    states.done = { terminal: true };
    return { name: spec.name, ...settingsOf(raw), initial: 'step_0', states };
  },
};

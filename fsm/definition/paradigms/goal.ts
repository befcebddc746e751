/**
 * `paradigm: goal` (seed 000 "Goal-Oriented"): "I want X to be true". `tools` are the check that
 * tells whether the goal holds and the action that works toward it:
 * `evaluate → (success → done, failure → fix), fix → evaluate`.
 */
import { z } from 'zod';
import { error } from '../../diagnostics.js';
import type { ParadigmCompiler } from './compiler.js';
import { settingsOf, settingsSchema } from './fields.js';
import { goalName } from './names.js';

const schema = settingsSchema.extend({
  paradigm: z.literal('goal'),
  /** Derived from the goal text when absent (names.ts). */
  name: z.string().min(1).optional(),
  goal: z.string().min(1),
  tools: z.array(z.string().min(1)).length(2),
});
type GoalSpec = z.output<typeof schema>;

export const goalCompiler: ParadigmCompiler<GoalSpec> = {
  paradigm: 'goal',
  schema,
  help: {
    goal: { expected: 'the outcome you want, as text', example: '"No type errors in src/"' },
    tools: {
      expected: 'a list of two actions: the check that passes when the goal holds, then the fix',
      example: '["mypy src/", "/ll:manage_issue bug fix"]',
      item: 'an action (a shell command or a /slash command)',
    },
  },
  check(spec) {
    if (spec.name !== undefined || goalName(spec.goal) !== undefined) return [];
    return [
      error(
        ['goal'],
        `cannot derive a loop name from goal ${JSON.stringify(spec.goal)}: it has no words before its scope`,
        'add name: <loop-name>',
      ),
    ];
  },
  compile(spec, raw) {
    const [check, fix] = spec.tools as [string, string];
    return {
      name: spec.name ?? goalName(spec.goal),
      ...settingsOf(raw),
      initial: 'evaluate',
      states: {
        evaluate: { action: check, on_success: 'done', on_failure: 'fix' },
        fix: { action: fix, next: 'evaluate' },
        done: { terminal: true },
      },
    };
  },
};

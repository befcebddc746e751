/**
 * `paradigm: invariants` (seed 000 "Invariant Maintenance"): keep constraints true. Each
 * constraint is a check and a fix: `check_1 → (success → check_2, failure → fix_1),
 * fix_1 → check_1, …, last check → all_valid`. With `maintain: true` the terminal `all_valid`
 * restarts at the first check (`on_maintain`). State names use each constraint's stem (names.ts).
 */
import { z } from 'zod';
import { error, type Diagnostic } from '../../diagnostics.js';
import type { ParadigmCompiler } from './compiler.js';
import { settingsOf, settingsSchema } from './fields.js';
import { constraintStems, nameWords } from './names.js';

const constraint = z.strictObject({
  name: z.string().min(1),
  check: z.string().min(1),
  fix: z.string().min(1),
});

const schema = settingsSchema.extend({
  paradigm: z.literal('invariants'),
  constraints: z.array(constraint).min(1),
});
type InvariantsSpec = z.output<typeof schema>;

export const invariantsCompiler: ParadigmCompiler<InvariantsSpec> = {
  paradigm: 'invariants',
  schema,
  help: {
    constraints: {
      expected: 'a list of one or more constraints, each with name, check and fix',
      example: '[{ name: tests-pass, check: pytest, fix: "/ll:manage_issue bug fix" }]',
      item: 'a constraint: a mapping with name, check and fix',
    },
    check: { expected: 'a command that passes (exits 0) while the constraint holds', example: 'pytest' },
    fix: { expected: 'the action that restores the constraint', example: '"/ll:manage_issue bug fix"' },
  },
  check(spec) {
    const names = spec.constraints.map((c) => c.name);
    const stems = constraintStems(names);
    const out: Diagnostic[] = [];
    names.forEach((name, i) => {
      if (stems[i] !== undefined) return;
      const twin = names.findIndex((other, j) => j !== i && nameWords(other) === nameWords(name));
      const why =
        twin >= 0
          ? `gives the same state names as constraints[${twin}] (${JSON.stringify(names[twin])})`
          : 'has no letters or digits to name its states with';
      out.push(
        error(
          ['constraints', i, 'name'],
          `constraint name ${JSON.stringify(name)} ${why}`,
          'give each constraint a distinct name made of words, e.g. tests-pass',
        ),
      );
    });
    return out;
  },
  compile(spec, raw) {
    const stems = constraintStems(spec.constraints.map((c) => c.name)) as string[];
    const states: Record<string, unknown> = {};
    spec.constraints.forEach((c, i) => {
      const next = i + 1 < stems.length ? `check_${stems[i + 1]}` : 'all_valid';
      states[`check_${stems[i]}`] = { action: c.check, on_success: next, on_failure: `fix_${stems[i]}` };
      states[`fix_${stems[i]}`] = { action: c.fix, next: `check_${stems[i]}` };
    });
    // Seed 000's compiler writes `on_maintain: None` without maintain mode; unset is omitted here.
    states.all_valid = { terminal: true, ...(spec.maintain ? { on_maintain: `check_${stems[0]}` } : {}) };
    return { name: spec.name, ...settingsOf(raw), initial: `check_${stems[0]}`, states };
  },
};

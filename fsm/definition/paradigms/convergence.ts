/**
 * `paradigm: convergence` (seed 000 "Convergence"): drive a measured number toward a target.
 * `measure → (target → done, progress → apply, stall → done), apply → measure`, the command and
 * the numbers kept in `context:` as seed 000's compiler does. Unlike seed 000 it writes no
 * `previous: ${prev.output}`: at `measure` that is `apply`'s output, not the last measurement, so
 * the evaluator compares with its own last value instead (docs/paradigms.md).
 */
import { z } from 'zod';
import { error, type Diagnostic } from '../../diagnostics.js';
import type { ParadigmCompiler } from './compiler.js';
import { settingsOf, settingsSchema } from './fields.js';

/** A number, or a `${…}` template (e.g. a parameter) that renders to one at run time. */
const numberOrTemplate = z.union([z.number(), z.string().regex(/\$\{/)]);

const schema = settingsSchema.extend({
  paradigm: z.literal('convergence'),
  check: z.string().min(1),
  toward: numberOrTemplate,
  using: z.string().min(1),
  tolerance: z.union([z.number().nonnegative(), z.string().regex(/\$\{/)]).optional(),
  /** Not in seed 000: for metrics that should go up (coverage); written to the evaluator only when set. */
  direction: z.enum(['minimize', 'maximize']).optional(),
});
type ConvergenceSpec = z.output<typeof schema>;

/** The context keys the compiled FSM defines; the author's own `context:` may not reuse them. */
const GENERATED_CONTEXT = { metric_cmd: 'check', target: 'toward', tolerance: 'tolerance' } as const;

export const convergenceCompiler: ParadigmCompiler<ConvergenceSpec> = {
  paradigm: 'convergence',
  schema,
  help: {
    check: {
      expected: 'a command that prints the current value of the metric (a number)',
      example: `"ruff check src/ --output-format=json | jq '.count'"`,
    },
    toward: { expected: 'the target number (or a ${context.*} template that renders to one)', example: '0' },
    using: { expected: 'the action that moves the metric toward the target', example: '"/ll:check_code fix"' },
    tolerance: { expected: 'a number of 0 or more: stop when this close to the target', example: '0' },
    direction: { expected: 'minimize (the default) or maximize', example: 'maximize' },
  },
  check(_spec, raw) {
    const context = raw.context as Record<string, unknown> | undefined;
    const out: Diagnostic[] = [];
    for (const [key, field] of Object.entries(GENERATED_CONTEXT)) {
      if (context && Object.hasOwn(context, key)) {
        out.push(
          error(
            ['context', key],
            `context.${key} is set by the convergence compiler (from ${field}:)`,
            `rename this context entry, or set ${field}: instead`,
          ),
        );
      }
    }
    return out;
  },
  compile(spec, raw) {
    const settings = settingsOf(raw);
    const context = {
      metric_cmd: spec.check,
      target: spec.toward,
      tolerance: spec.tolerance ?? 0,
      ...(settings.context as Record<string, unknown> | undefined),
    };
    return {
      name: spec.name,
      ...settings,
      initial: 'measure',
      context,
      states: {
        measure: {
          action: '${context.metric_cmd}',
          capture: 'current_value',
          evaluate: {
            type: 'convergence',
            target: '${context.target}',
            tolerance: '${context.tolerance}',
            ...(spec.direction === undefined ? {} : { direction: spec.direction }),
          },
          route: { target: 'done', progress: 'apply', stall: 'done' },
        },
        apply: { action: spec.using, next: 'measure' },
        done: { terminal: true },
      },
    };
  },
};

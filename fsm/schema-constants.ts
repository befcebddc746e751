/**
 * Constants of the loop language that the run-time core reads, in a module free of zod: the
 * workflow evaluates its module graph again for every run it starts (the SDK's reused V8 context
 * gives each run fresh module state), and building the definition schema's zod objects was the
 * largest part of that (profiled: 5.5 of 12 s of the workflow thread's CPU with 200 new runs).
 * fsm/schema.ts re-exports them.
 */

export const COMPARISON_OPERATORS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

/** `llm.schema_retries` when the loop gives none (issue 13 §4). */
export const DEFAULT_SCHEMA_RETRIES = 2;

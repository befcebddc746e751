/** The default structured-output schema for `llm_structured` (seed 001 "Default Schema"). */
export const DEFAULT_LLM_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    verdict: {
      type: 'string',
      enum: ['yes', 'no', 'blocked', 'partial'],
      description:
        '- yes: The condition/check evaluated to true\n- no: The condition/check evaluated to false\n' +
        '- blocked: Cannot proceed without external help\n- partial: Made progress but not complete',
    },
    confidence: { type: 'number', minimum: 0, maximum: 1, description: 'Confidence in this verdict (0-1)' },
    reason: { type: 'string', description: 'Brief explanation' },
  },
  required: ['verdict', 'confidence', 'reason'],
};

/** The verdict of a judge that abstains: it cannot tell from what it was shown (little-loops' word). */
export const CANNOT_JUDGE = 'cannot_judge';

const CANNOT_JUDGE_LINE = '\n- cannot_judge: The output does not show enough to decide either way';

/**
 * `schema` with `cannot_judge` among its verdicts, for a state whose judge may abstain. A schema
 * without a `verdict` enum, or that lists it already, is returned as it is.
 */
export function withCannotJudge(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, unknown> | undefined;
  const verdict = properties?.verdict as { enum?: unknown; description?: unknown } | undefined;
  if (!verdict || !Array.isArray(verdict.enum) || verdict.enum.includes(CANNOT_JUDGE)) return schema;
  const described =
    typeof verdict.description === 'string' ? { description: verdict.description + CANNOT_JUDGE_LINE } : {};
  return {
    ...schema,
    properties: { ...properties, verdict: { ...verdict, enum: [...verdict.enum, CANNOT_JUDGE], ...described } },
  };
}

/** The default schema of a judge that may abstain. */
const DEFAULT_ABSTAINING_SCHEMA = withCannotJudge(DEFAULT_LLM_SCHEMA);

/**
 * What an answer to the default schema is checked against: the same verdicts, but only `verdict`
 * required — seed 001 makes `confidence` (taken as 1.0) and `reason` optional, and runs relied on it.
 */
const DEFAULT_LLM_ANSWER_CHECK: Record<string, unknown> = { ...DEFAULT_LLM_SCHEMA, required: ['verdict'] };
const DEFAULT_ABSTAINING_ANSWER_CHECK: Record<string, unknown> = {
  ...DEFAULT_ABSTAINING_SCHEMA,
  required: ['verdict'],
};

/** The schema an answer is checked against: a loop's own as written, the default (abstaining or not) leniently. */
export function answerCheckSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(schema);
  if (text === JSON.stringify(DEFAULT_LLM_SCHEMA)) return DEFAULT_LLM_ANSWER_CHECK;
  return text === JSON.stringify(DEFAULT_ABSTAINING_SCHEMA) ? DEFAULT_ABSTAINING_ANSWER_CHECK : schema;
}

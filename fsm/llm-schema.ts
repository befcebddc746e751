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

/**
 * What an answer to the default schema is checked against: the same verdicts, but only `verdict`
 * required — seed 001 makes `confidence` (taken as 1.0) and `reason` optional, and runs relied on it.
 */
const DEFAULT_LLM_ANSWER_CHECK: Record<string, unknown> = { ...DEFAULT_LLM_SCHEMA, required: ['verdict'] };

/** The schema an answer is checked against: a loop's own as written, the default leniently. */
export function answerCheckSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return JSON.stringify(schema) === JSON.stringify(DEFAULT_LLM_SCHEMA) ? DEFAULT_LLM_ANSWER_CHECK : schema;
}

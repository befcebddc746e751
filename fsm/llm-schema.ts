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

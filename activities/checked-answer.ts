/**
 * An LLM judge's answer, read and — for runs that check answers — held against the evaluator's
 * schema. The ONE place this happens, whoever answered (the host CLI, or an HTTP API provider):
 * a provider's structured output is a request to the model, not a guarantee (a compatible server
 * may ignore `response_format`, a model may bend an enum), so its answers are checked as the host
 * CLI's are.
 */
import { readJudgement } from '../fsm/run/llm-judgement.js';
import { answerCheckSchema } from '../fsm/llm-schema.js';
import type { LlmReply } from '../fsm/run/snapshot.js';
import { compileJsonSchema, schemaErrors } from '../loader/json-schema.js';

/**
 * The reply for an answer object: `invalid` with every way it misses `schema` when `check` is
 * set, else the judgement. Throws a descriptive Error when the answer has no string `verdict`.
 */
export function checkedAnswer(
  answer: Record<string, unknown>,
  schema: Record<string, unknown>,
  check: boolean | undefined,
): LlmReply {
  if (check) {
    // The loader refuses such schemas; a definition from before that check is not asked again in vain.
    const against = answerCheckSchema(schema);
    const compiled = compileJsonSchema(against);
    if ('problem' in compiled)
      return { error: `the evaluator's schema is not a valid JSON Schema: ${compiled.problem}` };
    const errors = schemaErrors(against, answer);
    if (errors.length > 0) return { invalid: { errors, answer } };
  }
  return { judgement: readJudgement(answer) };
}
